package dev.loadflow.dispatcher;

import dev.loadflow.dispatcher.claim.RowDispatcher;
import dev.loadflow.dispatcher.deliver.Delivery;
import dev.loadflow.dispatcher.fanout.StageWebhooks;
import dev.loadflow.dispatcher.finish.Finisher;
import dev.loadflow.dispatcher.finish.RetryPolicy;
import dev.loadflow.dispatcher.internal.InternalActions;
import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.provider.TwilioSms;
import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.ChannelsConfig;
import dev.loadflow.dispatcher.send.VertxHttpTransport;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.alert.PgOpsAlerts;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.store.pg.WakeupSignal;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.processed.PgProcessedEvents;
import dev.loadflow.store.provider.PgProviderMessages;
import dev.loadflow.store.queue.PgLoadQueue;
import dev.loadflow.store.stage.PgLoadStages;
import dev.loadflow.store.timer.PgTimerStore;
import dev.loadflow.testing.PgBackend;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;

import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * A dispatcher built by hand on a test database and a fake clock, as the service wires it: a
 * row's whole path (claim, guards, send, reconcile, finish) without Quarkus, for tests that move
 * time past leases and budgets.
 */
final class PlainDispatcher {

    static final Duration LEASE = Duration.ofSeconds(90);
    static final Duration BUDGET = Duration.ofSeconds(150);

    final EventStore events;
    final Outbox outbox;
    final ChannelGuards guards;
    final RowDispatcher dispatcher;

    /**
     * @param paces each channel's in-flight limit and rate
     * @param circuit when a channel's circuit opens, and for how long
     */
    PlainDispatcher(PgBackend pg, FakeClock clock, Vertx vertx, ChannelsConfig channels, DispatcherConfig.Circuit circuit,
                    Function<Channel, ChannelGuards.Pace> paces) {
        this(pg, clock, vertx, channels, circuit, paces, UnaryOperator.identity());
    }

    /** @param outboxes what the dispatcher's outbox is made of the database's (a faulty one, for a test) */
    PlainDispatcher(PgBackend pg, FakeClock clock, Vertx vertx, ChannelsConfig channels, DispatcherConfig.Circuit circuit,
                    Function<Channel, ChannelGuards.Pace> paces, UnaryOperator<Outbox> outboxes) {
        this(pg, clock, vertx, channels, circuit, paces, outboxes, RowDispatcher.SEND_ROOM);
    }

    /** @param sendRoom how much of its lease a claim must still have for its request to go out */
    PlainDispatcher(PgBackend pg, FakeClock clock, Vertx vertx, ChannelsConfig channels, DispatcherConfig.Circuit circuit,
                    Function<Channel, ChannelGuards.Pace> paces, UnaryOperator<Outbox> outboxes, Duration sendRoom) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        this.events = new PgEventStore(pg.pool(), clock, pg.wakeups());
        this.outbox = outboxes.apply(new PgOutbox(pg.pool(), clock, LEASE));
        ChannelClients clients = new ChannelClients(channels, new VertxHttpTransport(vertx, 4), clock, java.util.List.of(),
                new TwilioSms.Ledger(new PgProviderMessages(pg.pool()), outbox));
        this.guards = new ChannelGuards(circuit, paces, registry, ChannelGuards.CircuitListener.NONE, System::nanoTime);
        Delivery delivery = new Delivery(clients, new InternalActions(new PgTimerStore(pg.pool(), clock, Duration.ofSeconds(30),
                Wakeups.NONE), new PgLoadStages(pg.pool()), clock),
                new StageWebhooks(new PgProcessedEvents(pg.pool()), clients, Duration.ofSeconds(1), clock), guards);
        Finisher finisher = new Finisher(outbox, new PgLoadQueue(pg.pool(), clock, Duration.ofMinutes(5), new WakeupSignal(),
                Wakeups.NONE), new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30), BUDGET, new SplittableRandom(7)),
                new PgOpsAlerts(pg.pool()), new DispatcherMetrics(registry), clock, channel -> clients.reconciler(channel).isPresent());
        this.dispatcher = new RowDispatcher(outbox, delivery, finisher, new DispatcherMetrics(registry), clock,
                dev.loadflow.service.trace.Traces.NONE, sendRoom);
    }

    /** Four requests in flight per channel, and a circuit that needs 100 calls to open. */
    PlainDispatcher(PgBackend pg, FakeClock clock, Vertx vertx, ChannelsConfig channels) {
        this(pg, clock, vertx, channels, DispatcherConfig.Circuit.of(50, 100, 100, Duration.ofSeconds(30)),
                channel -> new ChannelGuards.Pace(4, 0));
    }

    /**
     * {@code outbox}, whose methods named as {@code refused} accepts fail while {@code refusals} is
     * above zero (counting it down): the database refusing a mark for a moment.
     */
    static Outbox refusing(Outbox outbox, java.util.function.Predicate<String> refused,
                           java.util.concurrent.atomic.AtomicInteger refusals) {
        return (Outbox) java.lang.reflect.Proxy.newProxyInstance(Outbox.class.getClassLoader(), new Class<?>[] {Outbox.class},
                (proxy, method, args) -> {
                    if (refused.test(method.getName()) && refusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                        throw new IllegalStateException("Connection reset");
                    }
                    try {
                        return method.invoke(outbox, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** Claims what of {@code channel} is due now and dispatches it, as a dispatcher's loop would. */
    void dispatchDue(Channel channel, java.time.Instant now) throws InterruptedException {
        for (OutboxRow row : outbox.pending(Map.of(channel, 10), now)) {
            dispatcher.dispatch(row);
        }
    }
}
