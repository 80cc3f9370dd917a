package dev.loadflow.store;

import dev.loadflow.store.alert.PgOpsAlerts;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.store.pg.WakeupSignal;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.queue.PgHeldLoads;
import dev.loadflow.store.overview.PgLoadDirectory;
import dev.loadflow.store.queue.PgDeadLetters;
import dev.loadflow.store.queue.PgLoadQueue;
import dev.loadflow.store.queue.PgQueueView;
import dev.loadflow.store.queue.QueueBackend;
import dev.loadflow.store.retention.PgRetention;
import dev.loadflow.store.timer.PgTimerStore;
import io.vertx.sqlclient.Pool;

import java.time.Clock;
import java.time.Duration;

/**
 * The PostgreSQL stores of one database, built in one place: each on the same pool and clock,
 * telling the same {@link Wakeups} of what it committed. The services and the evals build their
 * stores here; what differs between them (a lease, a visibility timeout) is an argument of the
 * store it belongs to. A schema Citus shards by load has stores of its own, built by a subclass
 * of this one (module {@code store-citus}).
 */
public class PgStores {

    protected final Pool pool;
    protected final Clock clock;
    protected final Wakeups wakeups;

    public PgStores(Pool pool, Clock clock, Wakeups wakeups) {
        this.pool = pool;
        this.clock = clock;
        this.wakeups = wakeups;
    }

    public PgEventStore eventStore() {
        return new PgEventStore(pool, clock, wakeups);
    }

    /** @param lease how long a dispatcher's claim holds a row */
    public PgOutbox outbox(Duration lease) {
        return new PgOutbox(pool, clock, lease);
    }

    /**
     * @param claimLease how long a pump's claim on a due timer holds
     * @param wakeWithin tell the pumps only of timers due within this; null: of every timer
     */
    public PgTimerStore timers(Duration claimLease, Duration wakeWithin) {
        return new PgTimerStore(pool, clock, claimLease, wakeups, wakeWithin);
    }

    /**
     * @param visibilityTimeout how long a delivered message stays hidden
     * @param wakeup            what wakes this instance's long polls when messages are enqueued
     */
    public PgLoadQueue queue(Duration visibilityTimeout, WakeupSignal wakeup) {
        return new PgLoadQueue(pool, clock, visibilityTimeout, wakeup, wakeups);
    }

    /** The queue in its three roles: {@link #queue}, its dead letters and its read-only view. */
    public QueueBackend queueBackend(Duration visibilityTimeout, WakeupSignal wakeup) {
        return new QueueBackend(queue(visibilityTimeout, wakeup), new PgDeadLetters(pool, clock, wakeups), new PgQueueView(pool));
    }

    /** The console's search for loads. */
    public PgLoadDirectory loadDirectory() {
        return new PgLoadDirectory(pool);
    }

    public PgOpsAlerts opsAlerts() {
        return new PgOpsAlerts(pool);
    }

    public PgHeldLoads heldLoads() {
        return new PgHeldLoads(pool, clock);
    }

    /** The clients' SOPs as numbered versions. */
    public dev.loadflow.store.sop.PgSopVersions sopVersions() {
        return new dev.loadflow.store.sop.PgSopVersions(pool, wakeups);
    }

    /** @param export where what retention deletes of what an operator handled is written first */
    public PgRetention retention(PgRetention.Export export) {
        return new PgRetention(pool, export);
    }
}
