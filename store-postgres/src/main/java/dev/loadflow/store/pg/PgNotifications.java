package dev.loadflow.store.pg;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.pubsub.PgSubscriber;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * LISTEN on loadflow's NOTIFY channels (sent by {@link PgWakeups} after outbox rows, timers or
 * queue messages are committed) and turn each notification into a {@link WakeupSignal}. It only
 * shortens waits: every consumer also polls, so a lost connection or notification costs
 * latency, never a message. The subscriber reconnects by itself, firing every signal when it
 * does so that nothing committed while it was away waits a whole poll.
 */
public final class PgNotifications implements AutoCloseable {

    public static final String OUTBOX = "loadflow_outbox";
    public static final String TIMERS = "loadflow_timers";
    public static final String QUEUE = "loadflow_queue";
    /** A client's SOP got a new version: the workers read the SOPs again. */
    public static final String SOP = "loadflow_sop";

    private final Vertx vertx;
    private final PgSubscriber subscriber;
    private final long retryMillis;
    private final Map<String, WakeupSignal> signals = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private PgNotifications(Vertx vertx, PgSubscriber subscriber, long retryMillis) {
        this.vertx = vertx;
        this.subscriber = subscriber;
        this.retryMillis = retryMillis;
    }

    /**
     * Listens on {@code channels} over one connection of its own. Returns at once: the
     * connection is made in the background and retried every {@code reconnectDelay} until it
     * succeeds (and again whenever it drops), so a database that is down at start-up delays
     * wake-ups but never start-up.
     */
    public static PgNotifications listen(Vertx vertx, PgConnectOptions options, Duration reconnectDelay,
                                         String... channels) {
        long delayMillis = Math.max(1L, WakeupSignal.toMillis(reconnectDelay));
        PgSubscriber subscriber = PgSubscriber.subscriber(vertx, options).reconnectPolicy(retries -> delayMillis);
        PgNotifications notifications = new PgNotifications(vertx, subscriber, delayMillis);
        for (String channel : channels) {
            WakeupSignal signal = notifications.signal(channel);
            subscriber.channel(channel)
                    .handler(payload -> signal.fire(due(payload)))
                    .subscribeHandler(v -> signal.fire());
        }
        notifications.connect();
        return notifications;
    }

    private void connect() {
        subscriber.connect().onFailure(error -> {
            if (!closed) {
                vertx.setTimer(retryMillis, id -> connect());
            }
        });
    }


    /** The signal of {@code channel}; one that nobody listens on never fires. */
    public WakeupSignal signal(String channel) {
        return signals.computeIfAbsent(channel, c -> new WakeupSignal());
    }

    @Override
    public void close() {
        closed = true;
        subscriber.close();
    }

    /** A notification's due time: its payload in epoch milliseconds, or now ({@link Long#MIN_VALUE}) without one. */
    static long due(String payload) {
        if (payload == null || payload.isBlank()) {
            return Long.MIN_VALUE;
        }
        try {
            return Long.parseLong(payload.strip());
        } catch (NumberFormatException e) {
            return Long.MIN_VALUE;
        }
    }
}
