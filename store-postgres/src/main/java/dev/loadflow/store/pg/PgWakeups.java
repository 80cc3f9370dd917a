package dev.loadflow.store.pg;

import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link Wakeups} as NOTIFY statements of their own, sent after the writer's commit.
 *
 * <p>Why not NOTIFY (or a trigger) inside the writing transaction: PostgreSQL serialises the
 * commits of every transaction that notified, and holds that lock through the commit's WAL
 * flush, so notifying writers lost group commit and queued behind each other's fsync (the
 * benchmark's backends spent more time waiting on that lock than running). Here the NOTIFY is
 * its own transaction, committed without waiting for the flush ({@code synchronous_commit} off
 * for that transaction only: a notification is not durable anyway).
 *
 * <p>Per channel, at most one NOTIFY is in flight; wakes that arrive meanwhile are folded into
 * one more NOTIFY sent when it completes. So every wake is followed by a NOTIFY sent after it,
 * and a burst of commits costs a handful of notifications, not one each. A wake for work due
 * later ({@link #wake(String, java.time.Instant)}) sends the earliest due time of what it folds
 * as the payload (epoch milliseconds); a plain wake sends none, which means "now".
 */
public final class PgWakeups implements Wakeups {

    private static final System.Logger LOG = System.getLogger(PgWakeups.class.getName());

    static final String NOTIFY = "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)";

    private final Pool pool;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final AtomicLong sent = new AtomicLong();

    public PgWakeups(Pool pool) {
        this.pool = pool;
    }

    @Override
    public void wake(String channel) {
        channels.computeIfAbsent(channel, Channel::new).wake(NOW);
    }

    @Override
    public void wake(String channel, java.time.Instant due) {
        channels.computeIfAbsent(channel, Channel::new).wake(due.toEpochMilli());
    }

    /** The payload of a notification: the earliest due time folded into it, or none for "now". */
    static String payload(long due) {
        return due == NOW || due == NONE_DUE ? "" : Long.toString(due);
    }

    /** NOTIFY statements sent so far (fewer than wakes when they come in bursts). */
    public long sent() {
        return sent.get();
    }

    private static final long NOW = Long.MIN_VALUE;
    private static final long NONE_DUE = Long.MAX_VALUE;

    private final class Channel {
        private final String name;
        private final AtomicBoolean inFlight = new AtomicBoolean();
        private final AtomicBoolean pending = new AtomicBoolean();
        /** The earliest due time of the wakes not sent yet ({@link #NOW} for a plain one). */
        private final AtomicLong pendingDue = new AtomicLong(NONE_DUE);

        Channel(String name) {
            this.name = name;
        }

        void wake(long due) {
            pendingDue.accumulateAndGet(due, Math::min);
            pending.set(true);
            if (inFlight.compareAndSet(false, true)) {
                send();
            }
        }

        private void send() {
            pending.set(false);
            sent.incrementAndGet();
            pool.preparedQuery(NOTIFY).execute(Tuple.of(name, payload(pendingDue.getAndSet(NONE_DUE)))).onComplete(result -> {
                if (result.failed()) {
                    LOG.log(System.Logger.Level.DEBUG, "NOTIFY " + name + " failed; its listeners find the work at their next poll",
                            result.cause());
                }
                inFlight.set(false);
                if (pending.get() && inFlight.compareAndSet(false, true)) {
                    send();
                }
            });
        }
    }
}
