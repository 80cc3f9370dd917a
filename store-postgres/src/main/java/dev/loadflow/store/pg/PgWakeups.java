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
 * and a burst of commits costs a handful of notifications, not one each.
 */
public final class PgWakeups implements Wakeups {

    private static final System.Logger LOG = System.getLogger(PgWakeups.class.getName());

    static final String NOTIFY = "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, '')";

    private final Pool pool;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final AtomicLong sent = new AtomicLong();

    public PgWakeups(Pool pool) {
        this.pool = pool;
    }

    @Override
    public void wake(String channel) {
        channels.computeIfAbsent(channel, Channel::new).wake();
    }

    /** NOTIFY statements sent so far (fewer than wakes when they come in bursts). */
    public long sent() {
        return sent.get();
    }

    private final class Channel {
        private final String name;
        private final AtomicBoolean inFlight = new AtomicBoolean();
        private final AtomicBoolean pending = new AtomicBoolean();

        Channel(String name) {
            this.name = name;
        }

        void wake() {
            pending.set(true);
            if (inFlight.compareAndSet(false, true)) {
                send();
            }
        }

        private void send() {
            pending.set(false);
            sent.incrementAndGet();
            pool.preparedQuery(NOTIFY).execute(Tuple.of(name)).onComplete(result -> {
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
