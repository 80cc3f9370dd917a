package dev.loadflow.store.pg;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.pubsub.PgSubscriber;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * LISTEN on loadflow's NOTIFY channels (fired by triggers when outbox rows, timers or queue
 * messages are inserted) and turn each notification into a {@link WakeupSignal}. It only
 * shortens waits: every consumer also polls, so a lost connection or notification costs
 * latency, never a message. The subscriber reconnects by itself, firing every signal when it
 * does so that nothing committed while it was away waits a whole poll.
 */
public final class PgNotifications implements AutoCloseable {

    public static final String OUTBOX = "loadflow_outbox";
    public static final String TIMERS = "loadflow_timers";
    public static final String QUEUE = "loadflow_queue";

    private final PgSubscriber subscriber;
    private final Map<String, WakeupSignal> signals = new ConcurrentHashMap<>();

    private PgNotifications(PgSubscriber subscriber) {
        this.subscriber = subscriber;
    }

    /** Connects and listens on {@code channels}; the returned instance owns one connection. */
    public static PgNotifications listen(Vertx vertx, PgConnectOptions options, Duration reconnectDelay,
                                         String... channels) {
        PgSubscriber subscriber = PgSubscriber.subscriber(vertx, options)
                .reconnectPolicy(retries -> Math.max(1L, WakeupSignal.toMillis(reconnectDelay)));
        PgNotifications notifications = new PgNotifications(subscriber);
        for (String channel : channels) {
            WakeupSignal signal = notifications.signal(channel);
            subscriber.channel(channel)
                    .handler(payload -> signal.fire())
                    .subscribeHandler(v -> signal.fire());
        }
        Pg.await(subscriber.connect());
        return notifications;
    }

    /** The signal of {@code channel}; one that nobody listens on never fires. */
    public WakeupSignal signal(String channel) {
        return signals.computeIfAbsent(channel, c -> new WakeupSignal());
    }

    @Override
    public void close() {
        Pg.await(subscriber.close());
    }
}
