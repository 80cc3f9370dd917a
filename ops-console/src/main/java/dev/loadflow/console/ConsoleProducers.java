package dev.loadflow.console;

import dev.loadflow.store.PgStores;
import dev.loadflow.store.sop.SopVersions;
import dev.loadflow.store.alert.OpsAlerts;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.overview.PgLoadDirectory;
import dev.loadflow.store.overview.PgOverview;
import dev.loadflow.store.overview.PgWaiting;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.timer.TimerStore;
import io.vertx.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.time.Duration;

/**
 * The stores the console reads. It only reads: its database role cannot write, and the leases
 * these stores take for writers never apply.
 */
@ApplicationScoped
public class ConsoleProducers {

    private static final Duration NO_LEASE = Duration.ofSeconds(1);

    @Produces
    @Singleton
    Outbox outbox(PgStores stores) {
        return stores.outbox(NO_LEASE);
    }

    @Produces
    @Singleton
    TimerStore timers(PgStores stores) {
        return stores.timers(NO_LEASE, null);
    }

    @Produces
    @Singleton
    HeldLoads heldLoads(PgStores stores) {
        return stores.heldLoads();
    }

    @Produces
    @Singleton
    PgOverview overview(Pool pool) {
        return new PgOverview(pool);
    }

    @Produces
    @Singleton
    PgWaiting waiting(Pool pool) {
        return new PgWaiting(pool);
    }

    @Produces
    @Singleton
    PgLoadDirectory loadDirectory(PgStores stores) {
        return stores.loadDirectory();
    }

    @Produces
    @Singleton
    OpsAlerts opsAlerts(PgStores stores) {
        return stores.opsAlerts();
    }

    /** The clients' SOP versions, read through the console's view of {@code sop_version}. */
    @Produces
    @Singleton
    SopVersions sopVersions(PgStores stores) {
        return stores.sopVersions();
    }
}
