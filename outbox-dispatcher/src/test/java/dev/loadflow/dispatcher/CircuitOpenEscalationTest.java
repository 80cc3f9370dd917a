package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.send.ChannelsConfig;
import dev.loadflow.dispatcher.send.TestChannelsConfig;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.testing.PgBackend;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static dev.loadflow.dispatcher.PlainDispatcher.BUDGET;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The retry budget when the SMS provider is down. Rows its open circuit keeps from it are
 * deferred, but not past their budget (150 s from their creation when never tried): at its end a
 * row dies with a failed outcome, so the load's SOP asks a person to call the driver within the
 * ADR's five minutes, and when the provider is back that SMS is not sent after all. A row that was
 * tried, though, counts its budget from its first attempt.
 */
class CircuitOpenEscalationTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("circuit_escalation");

    private static final Instant T0 = Instant.parse("2026-12-01T07:00:00Z");

    private static WireMockServer sms;
    private static Vertx vertx;
    private final FakeClock clock = FakeClock.at(T0);

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

    @BeforeEach
    void reset() {
        PG.database().truncateAll();
        sms.resetAll();
    }

    private static ChannelsConfig smsAt(WireMockServer server) {
        return TestChannelsConfig.of(TestChannelsConfig.endpoint(Optional.of(URI.create(server.baseUrl() + "/sms")), "none", null, null),
                TestChannelsConfig.endpoint(Optional.empty(), "none", null, null));
    }

    @Test
    void aRowTheOpenCircuitKeepsFromItsChannelDiesAtItsBudgetsEndAndIsNeverSent() throws Exception {
        // opens after two failed calls of two, and stays open far longer than this test runs
        PlainDispatcher plain = new PlainDispatcher(PG, clock, vertx, smsAt(sms),
                DispatcherConfig.Circuit.of(50, 2, 2, Duration.ofMinutes(10)), channel -> new ChannelGuards.Pace(4, 0));
        sms.stubFor(post(urlEqualTo("/sms/messages")).willReturn(aResponse().withStatus(503)));

        // two loads' SMS fail: the provider is down, the circuit opens
        Staging.etaAsk(plain.events, newLoadId(), clock.instant());
        Staging.etaAsk(plain.events, newLoadId(), clock.instant());
        plain.dispatchDue(Channel.SMS, clock.instant());
        assertThat(plain.guards.state(Channel.SMS)).isEqualTo(CircuitBreaker.State.OPEN);

        // a third load's SMS, decided while the provider is down, is never tried
        clock.advance(Duration.ofSeconds(10));
        String load = newLoadId();
        Staging.etaAsk(plain.events, load, clock.instant());
        String id = Staging.smsId(load);
        Instant created = clock.instant();
        for (int pass = 0; pass < 100 && plain.outbox.find(id).orElseThrow().status() == OutboxStatus.PENDING; pass++) {
            plain.dispatchDue(Channel.SMS, clock.instant());
            clock.advance(Duration.ofSeconds(10));
        }

        OutboxRow dead = plain.outbox.find(id).orElseThrow();
        assertThat(dead.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(dead.deadAt()).as("at its budget's end, counted from its creation").isBetween(created.plus(BUDGET),
                created.plus(BUDGET).plusSeconds(10));
        assertThat(dead.lastFailure()).contains("unavailable").contains("never sent");
        assertThat(Staging.queued(PG.pool(), load, "out:" + id + ":failed")).as("the load hears of it").isNotNull();

        // the provider is back: the dead SMS stays unsent
        sms.stubFor(post(urlEqualTo("/sms/messages")).willReturn(aResponse().withStatus(200).withBody("{\"id\": \"m-1\"}")));
        clock.advance(Duration.ofMinutes(10));
        plain.dispatchDue(Channel.SMS, clock.instant());
        sms.verify(0, postRequestedFor(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(id)));
        assertThat(plain.outbox.find(id).orElseThrow().status()).isEqualTo(OutboxStatus.DEAD);
    }

    /**
     * A circuit that opens at once and whose half-open trial calls keep failing: rows deferred by the
     * open circuit and then tried as trial calls keep the budget that began at their first claim, so
     * every one of twenty dies within it (the trials never restart it).
     */
    @Test
    void trialCallsThatFailNeverRestartARowsBudget() throws Exception {
        // opens after two failed calls, and lets trial calls through a millisecond later
        PlainDispatcher plain = new PlainDispatcher(PG, clock, vertx, smsAt(sms),
                DispatcherConfig.Circuit.of(50, 2, 2, Duration.ofMillis(1)), channel -> new ChannelGuards.Pace(4, 0));
        sms.stubFor(post(urlEqualTo("/sms/messages")).willReturn(aResponse().withStatus(500)));
        java.util.List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String load = newLoadId();
            Staging.etaAsk(plain.events, load, clock.instant());
            ids.add(Staging.smsId(load));
        }
        Instant created = clock.instant();

        for (int pass = 0; pass < 60; pass++) {
            plain.dispatchDue(Channel.SMS, clock.instant());
            clock.advance(Duration.ofSeconds(5));
        }

        assertThat(ids).allSatisfy(id -> {
            OutboxRow dead = plain.outbox.find(id).orElseThrow();
            assertThat(dead.status()).isEqualTo(OutboxStatus.DEAD);
            assertThat(dead.deadAt()).as("within the budget from its first claim, trial calls or not")
                    .isBeforeOrEqualTo(created.plus(BUDGET).plusSeconds(5));
        });
        assertThat(sms.findAll(postRequestedFor(urlEqualTo("/sms/messages")))).as("trial calls were made").hasSizeGreaterThan(2);
    }

    /** A row decided ten minutes before anyone tried it (its dispatchers were down) still gets its retries. */
    @Test
    void aRowFirstTriedLongAfterItWasMadeStillGetsItsWholeBudget() throws Exception {
        PlainDispatcher plain = new PlainDispatcher(PG, clock, vertx, smsAt(sms));
        String load = newLoadId();
        Staging.etaAsk(plain.events, load, T0);
        sms.stubFor(post(urlEqualTo("/sms/messages")).willReturn(aResponse().withStatus(503)));

        clock.advance(Duration.ofMinutes(10));
        for (int pass = 0; pass < 3; pass++) {
            plain.dispatchDue(Channel.SMS, clock.instant());
            clock.advance(Duration.ofSeconds(20));
        }

        OutboxRow retried = plain.outbox.find(Staging.smsId(load)).orElseThrow();
        assertThat(retried.status()).as("within its budget from the first attempt").isEqualTo(OutboxStatus.PENDING);
        assertThat(retried.firstAttemptAt()).isEqualTo(T0.plus(Duration.ofMinutes(10)));
        assertThat(retried.attempts()).isGreaterThanOrEqualTo(2);
    }
}
