package dev.loadflow.store.citus;

import dev.loadflow.store.PgStores;
import dev.loadflow.store.alert.PgOpsAlerts;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.store.overview.PgLoadDirectory;
import dev.loadflow.store.pg.WakeupSignal;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.queue.PgHeldLoads;
import dev.loadflow.store.queue.PgLoadQueue;
import dev.loadflow.store.retention.PgRetention;
import dev.loadflow.store.timer.PgTimerStore;
import io.vertx.sqlclient.Pool;

import java.time.Clock;
import java.time.Duration;

/**
 * The stores of a schema Citus distributes by load ({@code loadflow.db.citus}): each a PostgreSQL
 * store with the statements that differ there. What stays on the coordinator (the queue's tables,
 * the audit, the fan-out records, the provider and inbound messages) is read and written as on
 * one PostgreSQL; the per-load tables go through {@link CitusNodes} and {@link ByNode}.
 */
public class CitusStores extends PgStores {

    public CitusStores(Pool pool, Clock clock, Wakeups wakeups) {
        super(pool, clock, wakeups);
    }

    @Override
    public PgEventStore eventStore() {
        return new CitusEventStore(pool, clock, wakeups);
    }

    @Override
    public PgOutbox outbox(Duration lease) {
        return new CitusOutbox(pool, clock, lease);
    }

    @Override
    public PgTimerStore timers(Duration claimLease, Duration wakeWithin) {
        return new CitusTimerStore(pool, clock, claimLease, wakeups, wakeWithin);
    }

    @Override
    public PgLoadQueue queue(Duration visibilityTimeout, WakeupSignal wakeup) {
        return new CitusLoadQueue(pool, clock, visibilityTimeout, wakeup, wakeups);
    }

    @Override
    public PgLoadDirectory loadDirectory() {
        return new CitusLoadDirectory(pool);
    }

    @Override
    public PgOpsAlerts opsAlerts() {
        return new CitusOpsAlerts(pool);
    }

    @Override
    public PgHeldLoads heldLoads() {
        return new CitusHeldLoads(pool, clock);
    }

    @Override
    public PgRetention retention(PgRetention.Export export) {
        return new CitusRetention(pool, export);
    }
}
