package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.loadflow.dispatcher.claim.RowDispatcher;
import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.send.TestChannelsConfig;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.testing.PgBackend;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * A row that waits for its channel's only slot past the end of its lease is not sent when the slot
 * frees: another dispatcher may have taken it over by then. Its claim is checked again right
 * before the request, after the wait.
 */
class LapsedWhileWaitingTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("lapsed_while_waiting");

    private static final Instant T0 = Instant.parse("2026-12-01T07:00:00Z");

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

    @Test
    void aRowWhoseLeaseEndsWhileItWaitsForItsChannelIsNotSent() throws Exception {
        PG.database().truncateAll();
        FakeClock clock = FakeClock.at(T0);
        // one request in flight on the SMS channel at most
        PlainDispatcher plain = new PlainDispatcher(PG, clock, vertx, TestChannelsConfig.of(
                TestChannelsConfig.endpoint(Optional.of(URI.create(sms.baseUrl() + "/sms")), "none", null, null),
                TestChannelsConfig.endpoint(Optional.empty(), "none", null, null)),
                DispatcherConfig.Circuit.of(50, 100, 100, Duration.ofSeconds(30)), channel -> new ChannelGuards.Pace(1, 0));
        EventStore events = plain.events;
        Outbox outbox = plain.outbox;
        RowDispatcher dispatcher = plain.dispatcher;
        String slow = newLoadId();
        String waiting = newLoadId();
        Staging.etaAsk(events, slow, T0);
        Staging.etaAsk(events, waiting, T0);
        sms.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(Staging.smsId(slow)))
                .willReturn(aResponse().withStatus(200).withBody("{\"id\": \"m-slow\"}").withFixedDelay(2_000)));
        sms.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(Staging.smsId(waiting)))
                .willReturn(aResponse().withStatus(200).withBody("{\"id\": \"m-late\"}")));
        Map<String, OutboxRow> claimed = new java.util.HashMap<>();
        outbox.pending(Map.of(Channel.SMS, 10), T0).forEach(row -> claimed.put(row.loadId(), row));

        var threads = Executors.newVirtualThreadPerTaskExecutor();
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> dispatch(dispatcher, claimed.get(slow)), threads);
        await().atMost(Duration.ofSeconds(10)).until(() -> !sms.findAll(postRequestedFor(urlEqualTo("/sms/messages"))
                .withHeader("Idempotency-Key", equalTo(Staging.smsId(slow)))).isEmpty());
        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> dispatch(dispatcher, claimed.get(waiting)), threads);
        // the second waits for the slot; meanwhile its lease of 90 s ends
        clock.advance(Duration.ofSeconds(100));
        first.get(20, TimeUnit.SECONDS);
        second.get(20, TimeUnit.SECONDS);

        sms.verify(0, postRequestedFor(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(Staging.smsId(waiting))));
        OutboxRow left = outbox.find(Staging.smsId(waiting)).orElseThrow();
        assertThat(left.status()).as("left to whoever claims it next").isEqualTo(OutboxStatus.PENDING);
        assertThat(outbox.find(Staging.smsId(slow)).orElseThrow().status()).isEqualTo(OutboxStatus.DISPATCHED);
    }

    private static void dispatch(RowDispatcher dispatcher, OutboxRow row) {
        try {
            dispatcher.dispatch(row);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
