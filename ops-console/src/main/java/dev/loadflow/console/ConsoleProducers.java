package dev.loadflow.console;

import dev.loadflow.store.alert.OpsAlerts;
import dev.loadflow.store.alert.PgOpsAlerts;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.store.overview.PgLoadDirectory;
import dev.loadflow.store.overview.PgOverview;
import dev.loadflow.store.overview.PgWaiting;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.queue.PgHeldLoads;
import dev.loadflow.store.timer.PgTimerStore;
import dev.loadflow.store.timer.TimerStore;
import io.vertx.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Clock;
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
    Outbox outbox(Pool pool, Clock clock, @ConfigProperty(name = "loadflow.db.citus") boolean citus) {
        return new PgOutbox(pool, clock, NO_LEASE, citus);
    }

    @Produces
    @Singleton
    TimerStore timers(Pool pool, Clock clock, Wakeups wakeups, @ConfigProperty(name = "loadflow.db.citus") boolean citus) {
        return new PgTimerStore(pool, clock, NO_LEASE, wakeups, null, citus);
    }

    @Produces
    @Singleton
    HeldLoads heldLoads(Pool pool, Clock clock) {
        return new PgHeldLoads(pool, clock);
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
    PgLoadDirectory loadDirectory(Pool pool) {
        return new PgLoadDirectory(pool);
    }

    @Produces
    @Singleton
    OpsAlerts opsAlerts(Pool pool, @ConfigProperty(name = "loadflow.db.citus") boolean citus) {
        return new PgOpsAlerts(pool, citus);
    }
}
