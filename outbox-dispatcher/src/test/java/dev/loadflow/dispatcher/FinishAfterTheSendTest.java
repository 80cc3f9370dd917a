package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.send.TestChannelsConfig;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.testing.PgBackend;
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
import java.util.concurrent.atomic.AtomicInteger;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A failure after the send (the database refusing the row's mark for a moment) still ends in the
 * mark the attempt earned: the row backs off on the retry curve, instead of waiting out its lease
 * and going again the moment it ends.
 */
class FinishAfterTheSendTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("finish_after_send");

    private static final Instant T0 = Instant.parse("2026-12-01T07:00:00Z");

    private static WireMockServer sms;
    private static Vertx vertx;
    private final FakeClock clock = FakeClock.at(T0);
    private final AtomicInteger marksRefused = new AtomicInteger();
    private PlainDispatcher plain;

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
    void setUp() {
        PG.database().truncateAll();
        sms.resetAll();
        plain = new PlainDispatcher(PG, clock, vertx, TestChannelsConfig.of(
                TestChannelsConfig.endpoint(Optional.of(URI.create(sms.baseUrl() + "/sms")), "none", null, null),
                TestChannelsConfig.endpoint(Optional.empty(), "none", null, null)),
                DispatcherConfig.Circuit.of(50, 100, 100, Duration.ofSeconds(30)), channel -> new ChannelGuards.Pace(4, 0),
                this::refusingMarks, Duration.ZERO);
    }

    /** The outbox, whose {@code markFailed} fails while {@link #marksRefused} is above zero (counting it down). */
    private Outbox refusingMarks(Outbox outbox) {
        return PlainDispatcher.refusing(outbox, "markFailed"::equals, marksRefused);
    }

    @Test
    void aMarkThatFailsAfterTheSendIsTriedAgainAndTheRowBacksOffOnTheCurve() throws Exception {
        String load = newLoadId();
        Staging.etaAsk(plain.events, load, T0);
        sms.stubFor(post(urlEqualTo("/sms/messages")).willReturn(aResponse().withStatus(503)));
        marksRefused.set(2);

        plain.dispatchDue(Channel.SMS, T0);

        OutboxRow row = plain.outbox.find(Staging.smsId(load)).orElseThrow();
        assertThat(marksRefused).as("both refusals were met").hasValue(0);
        assertThat(row.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(row.claimToken()).as("no longer claimed: not left to wait out its lease").isNull();
        assertThat(row.availableAt()).as("due again on the retry curve, not when the lease ends")
                .isAfter(T0).isBefore(T0.plus(PlainDispatcher.LEASE));
        assertThat(plain.outbox.failures(Staging.smsId(load))).singleElement()
                .satisfies(f -> assertThat(f.failure()).contains("503"));
        sms.verify(1, postRequestedFor(urlEqualTo("/sms/messages")));
    }

    @Test
    void aMarkThatKeepsFailingLeavesTheRowClaimedUntilItsLeaseEnds() throws Exception {
        String load = newLoadId();
        Staging.etaAsk(plain.events, load, T0);
        sms.stubFor(post(urlEqualTo("/sms/messages")).willReturn(aResponse().withStatus(503)));
        marksRefused.set(Integer.MAX_VALUE);
        OutboxRow claimed = plain.outbox.pending(java.util.Map.of(Channel.SMS, 10), T0).getFirst();
        // the lease ends within the first wait: no second try
        clock.advance(PlainDispatcher.LEASE.minusMillis(100));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> plain.dispatcher.dispatch(claimed))
                .hasMessageContaining("Connection reset");

        assertThat(marksRefused.get()).as("one try: the lease had no room for a wait").isEqualTo(Integer.MAX_VALUE - 1);
        assertThat(plain.outbox.find(Staging.smsId(load)).orElseThrow().claimToken()).isEqualTo(claimed.claimToken());
    }
}
