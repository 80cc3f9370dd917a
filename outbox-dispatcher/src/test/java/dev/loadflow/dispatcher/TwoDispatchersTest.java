package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.loadflow.dispatcher.claim.DispatchLoop;
import dev.loadflow.dispatcher.claim.RowDispatcher;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.pg.PgNotifications;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.loadflow.dispatcher.Staging.count;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/** Two dispatcher instances share one outbox through SKIP LOCKED: no row is sent twice. */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
@WithTestResource(WireMockChannels.class)
class TwoDispatchersTest {

    @Inject
    EventStore events;

    @Inject
    Outbox outbox;

    @Inject
    RowDispatcher rowDispatcher;

    @Inject
    PgNotifications notifications;

    @Inject
    Clock clock;

    @Inject
    Pool pool;

    @Test
    void twoDispatchersAndAThousandRowsSendEveryRowExactlyOnce() {
        WireMockServer wiremock = WireMockChannels.server();
        String prefix = "two-" + Long.toHexString(System.nanoTime());
        wiremock.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", matching(prefix + ".*"))
                .willReturn(aResponse().withStatus(200).withBody("ok")));
        DispatchLoop second = new DispatchLoop(outbox, rowDispatcher, notifications.signal(PgNotifications.OUTBOX),
                clock, 25, channel -> 16, Duration.ofMillis(200), Duration.ofMillis(5),
                Duration.ofSeconds(30));
        second.start();
        try {
            List<String> loads = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                String load = prefix + "-" + i;
                loads.add(load);
                Staging.etaAsk(events, load, clock.instant());
            }

            await().atMost(Duration.ofSeconds(90)).until(() ->
                    count(pool, "SELECT count(*) FROM outbox WHERE load_id LIKE $1 AND status = 'dispatched'", prefix + "%") == 1000);

            List<LoggedRequest> sent = wiremock.findAll(postRequestedFor(urlEqualTo("/sms/messages"))
                    .withHeader("Idempotency-Key", matching(prefix + ".*")));
            Map<String, Long> perKey = sent.stream()
                    .collect(Collectors.groupingBy(r -> r.getHeader("Idempotency-Key"), Collectors.counting()));
            assertThat(perKey).hasSize(500);
            assertThat(perKey.values()).containsOnly(1L);
            assertThat(perKey.keySet()).containsExactlyInAnyOrderElementsOf(
                    loads.stream().map(Staging::smsId).collect(Collectors.toMap(Function.identity(), k -> k)).keySet());
            assertThat(count(pool, "SELECT count(*) FROM load_queue WHERE load_id LIKE $1", prefix + "%"))
                    .as("one delivered outcome per row").isEqualTo(1000);
        } finally {
            second.stop(Duration.ofSeconds(10));
        }
    }
}
