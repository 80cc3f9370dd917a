package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.loadflow.dispatcher.claim.RowDispatcher;
import dev.loadflow.dispatcher.deliver.Delivery;
import dev.loadflow.dispatcher.fanout.StageWebhooks;
import dev.loadflow.dispatcher.finish.Finisher;
import dev.loadflow.dispatcher.finish.RetryPolicy;
import dev.loadflow.dispatcher.internal.InternalActions;
import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.TestChannelsConfig;
import dev.loadflow.dispatcher.send.VertxHttpTransport;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.alert.PgOpsAlerts;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.store.pg.WakeupSignal;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.processed.PgProcessedEvents;
import dev.loadflow.store.queue.PgLoadQueue;
import dev.loadflow.store.stage.PgLoadStages;
import dev.loadflow.store.timer.PgTimerStore;
import dev.loadflow.testing.PgBackend;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SMS provider down for ten minutes: its circuit open, the rows never tried are deferred, but
 * not past their retry budget (150 s from their creation when never tried). At the budget's end a
 * row dies with a failed outcome, so the load's SOP asks a person to call the driver within the
 * ADR's five minutes, and when the provider is back that SMS is not sent after all.
 */
class CircuitOpenEscalationTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("circuit_escalation");

    private static final Instant T0 = Instant.parse("2026-12-01T07:00:00Z");
    private static final Duration BUDGET = Duration.ofSeconds(150);

    private static WireMockServer sms;
    private static Vertx vertx;

    @BeforeAll
    static void start() {
        sms = new WireMockServer(options().dynamicPort());
        sms.start();
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        sms.stop();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    /**
     * The budget counts from a row's first attempt, not its creation: a row decided ten minutes
     * before anyone tried it (its dispatchers were down) still gets its retries.
     */
    @Test
    void aRowFirstTriedLongAfterItWasMadeStillGetsItsWholeBudget() throws Exception {
        PG.database().truncateAll();
        FakeClock clock = FakeClock.at(T0);
        EventStore events = new PgEventStore(PG.pool(), clock, PG.wakeups());
        Outbox outbox = new PgOutbox(PG.pool(), clock, Duration.ofSeconds(90));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ChannelClients clients = new ChannelClients(TestChannelsConfig.of(
                TestChannelsConfig.endpoint(Optional.of(URI.create(sms.baseUrl() + "/sms")), "none", null, null),
                TestChannelsConfig.endpoint(Optional.empty(), "none", null, null)), new VertxHttpTransport(vertx, 4), clock);
        ChannelGuards guards = new ChannelGuards(DispatcherConfig.Circuit.of(50, 100, 100, Duration.ofSeconds(30)),
                channel -> 4, registry, ChannelGuards.CircuitListener.NONE);
        Delivery delivery = new Delivery(clients, new InternalActions(new PgTimerStore(PG.pool(), clock, Duration.ofSeconds(30),
                Wakeups.NONE), new PgLoadStages(PG.pool()), clock),
                new StageWebhooks(new PgProcessedEvents(PG.pool()), clients, Duration.ofSeconds(1), clock), guards);
        RowDispatcher dispatcher = new RowDispatcher(outbox, delivery, new Finisher(outbox,
                new PgLoadQueue(PG.pool(), clock, Duration.ofMinutes(5), new WakeupSignal(), Wakeups.NONE),
                new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30), BUDGET, new SplittableRandom(7)),
                new PgOpsAlerts(PG.pool()), new DispatcherMetrics(registry), clock), new DispatcherMetrics(registry), clock);
        String load = newLoadId();
        Staging.etaAsk(events, load, T0);
        sms.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(Staging.smsId(load)))
                .willReturn(aResponse().withStatus(503)));

        clock.advance(Duration.ofMinutes(10));
        for (int pass = 0; pass < 3; pass++) {
            for (OutboxRow row : outbox.pending(Map.of(Channel.SMS, 10), clock.instant())) {
                dispatcher.dispatch(row);
            }
            clock.advance(Duration.ofSeconds(20));
        }

        OutboxRow retried = outbox.find(Staging.smsId(load)).orElseThrow();
        assertThat(retried.status()).as("within its budget from the first attempt").isEqualTo(OutboxStatus.PENDING);
        assertThat(retried.firstAttemptAt()).isEqualTo(T0.plus(Duration.ofMinutes(10)));
        assertThat(retried.attempts()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void aRowTheOpenCircuitKeepsFromItsChannelDiesAtItsBudgetsEndAndIsNeverSent() throws Exception {
        PG.database().truncateAll();
        FakeClock clock = FakeClock.at(T0);
        EventStore events = new PgEventStore(PG.pool(), clock, PG.wakeups());
        Outbox outbox = new PgOutbox(PG.pool(), clock, Duration.ofSeconds(90));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ChannelClients clients = new ChannelClients(TestChannelsConfig.of(
                TestChannelsConfig.endpoint(Optional.of(URI.create(sms.baseUrl() + "/sms")), "none", null, null),
                TestChannelsConfig.endpoint(Optional.empty(), "none", null, null)), new VertxHttpTransport(vertx, 4), clock);
        // opens after two failed calls of two, and stays open far longer than this test runs
        ChannelGuards guards = new ChannelGuards(DispatcherConfig.Circuit.of(50, 2, 2, Duration.ofMinutes(10)),
                channel -> 4, registry, ChannelGuards.CircuitListener.NONE);
        Delivery delivery = new Delivery(clients, new InternalActions(new PgTimerStore(PG.pool(), clock, Duration.ofSeconds(30),
                Wakeups.NONE), new PgLoadStages(PG.pool()), clock),
                new StageWebhooks(new PgProcessedEvents(PG.pool()), clients, Duration.ofSeconds(1), clock), guards);
        PgLoadQueue queue = new PgLoadQueue(PG.pool(), clock, Duration.ofMinutes(5), new WakeupSignal(), Wakeups.NONE);
        RowDispatcher dispatcher = new RowDispatcher(outbox, delivery, new Finisher(outbox, queue,
                new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30), BUDGET, new SplittableRandom(7)),
                new PgOpsAlerts(PG.pool()), new DispatcherMetrics(registry), clock), new DispatcherMetrics(registry), clock);
        sms.stubFor(post(urlEqualTo("/sms/messages")).willReturn(aResponse().withStatus(503)));

        // two loads' SMS fail: the provider is down, the circuit opens
        for (String load : new String[]{newLoadId(), newLoadId()}) {
            Staging.etaAsk(events, load, clock.instant());
        }
        for (OutboxRow row : outbox.pending(Map.of(Channel.SMS, 10), clock.instant())) {
            dispatcher.dispatch(row);
        }
        assertThat(guards.state(Channel.SMS)).isEqualTo(CircuitBreaker.State.OPEN);

        // a third load's SMS, decided while the provider is down, is never tried
        clock.advance(Duration.ofSeconds(10));
        String load = newLoadId();
        Staging.etaAsk(events, load, clock.instant());
        String id = Staging.smsId(load);
        Instant created = clock.instant();
        for (int pass = 0; pass < 100 && outbox.find(id).orElseThrow().status() == OutboxStatus.PENDING; pass++) {
            for (OutboxRow row : outbox.pending(Map.of(Channel.SMS, 10), clock.instant())) {
                dispatcher.dispatch(row);
            }
            clock.advance(Duration.ofSeconds(10));
        }

        OutboxRow dead = outbox.find(id).orElseThrow();
        assertThat(dead.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(dead.deadAt()).as("at its budget's end, counted from its creation").isBetween(created.plus(BUDGET),
                created.plus(BUDGET).plusSeconds(10));
        assertThat(dead.lastFailure()).contains("unavailable").contains("never sent");
        assertThat(Staging.queued(PG.pool(), load, "out:" + id + ":failed")).as("the load hears of it").isNotNull();

        // the provider is back: the dead SMS stays unsent
        sms.stubFor(post(urlEqualTo("/sms/messages")).willReturn(aResponse().withStatus(200).withBody("{\"id\": \"m-1\"}")));
        clock.advance(Duration.ofMinutes(10));
        for (OutboxRow row : outbox.pending(Map.of(Channel.SMS, 10), clock.instant())) {
            dispatcher.dispatch(row);
        }
        sms.verify(0, postRequestedFor(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(id)));
        assertThat(outbox.find(id).orElseThrow().status()).isEqualTo(OutboxStatus.DEAD);
    }
}
