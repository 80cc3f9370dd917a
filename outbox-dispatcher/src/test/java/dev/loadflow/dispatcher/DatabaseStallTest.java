package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.store.pg.Wakeups;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Clock;
import java.time.Duration;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.loadflow.dispatcher.Staging.smsId;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.service.testing.Management.probe;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * The dispatcher's link to PostgreSQL goes silent or is cut while the workers go on committing
 * decisions: the dispatcher stays live, is ready again within 10 s of the link's return, and
 * sends what was committed meanwhile, once. The rows are committed straight to the database,
 * not through the dispatcher's link, as a worker on a link of its own would.
 */
@QuarkusTest
@WithTestResource(value = PostgresTestResource.class, initArgs = @ResourceArg(name = PostgresTestResource.LINK, value = "flowing"))
@WithTestResource(WireMockChannels.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DatabaseStallTest {

    private static final Duration RECOVERY = Duration.ofSeconds(10);

    private static Pool workersPool;
    private static EventStore workers;

    @Inject
    Vertx vertx;

    @Inject
    Clock clock;

    @Inject
    Outbox outbox;

    @AfterAll
    static void closeTheWorkersPool() {
        if (workersPool != null) {
            workersPool.close();
            workersPool = null;
            workers = null;
        }
    }

    /** The event log as a worker reaches it: straight to the database, not through the dispatcher's link. */
    private EventStore workers() {
        if (workers == null) {
            workersPool = PostgresTestResource.current().pool(vertx, 1);
            workers = new PgStores(workersPool, clock, Wakeups.NONE).eventStore();
        }
        return workers;
    }

    private static String smsAnswered(String load) {
        WireMockServer wiremock = WireMockChannels.server();
        wiremock.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(smsId(load)))
                .willReturn(aResponse().withStatus(201).withBody("{\"messageId\":\"m-" + load + "\"}")));
        return smsId(load);
    }

    @Test
    @Order(1)
    void aStalledLinkLeavesTheDispatcherLiveAndWhatWasCommittedMeanwhileIsSentOnceAfterIt() {
        await().atMost(Duration.ofSeconds(30)).until(() -> probe("ready") == 200);

        PostgresTestResource.link().stall();
        await().atMost(Duration.ofSeconds(20)).until(() -> probe("ready") != 200);
        String load = newLoadId();
        String sms = smsAnswered(load);
        Staging.etaAsk(workers(), load, clock.instant());
        assertThat(probe("live")).as("a database fault never fails liveness").isEqualTo(200);
        await().alias("nothing sent while the link is silent").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> WireMockChannels.server().countRequestsMatching(postRequestedFor(urlEqualTo("/sms/messages"))
                        .withHeader("Idempotency-Key", equalTo(sms)).build()).getCount() == 0);

        PostgresTestResource.link().heal();

        long healed = System.nanoTime();
        await().atMost(RECOVERY).pollInterval(Duration.ofMillis(200)).until(() -> probe("ready") == 200);
        System.out.printf("dispatcher ready %d ms after the link's recovery%n",
                Duration.ofNanos(System.nanoTime() - healed).toMillis());
        Staging.awaitStatus(outbox, sms, OutboxStatus.DISPATCHED);
        WireMockChannels.server().verify(1, postRequestedFor(urlEqualTo("/sms/messages"))
                .withHeader("Idempotency-Key", equalTo(sms)));
    }

    @Test
    @Order(2)
    void everyConnectionCutAtOnceLeavesTheDispatcherReadyAndSendingWithinTenSeconds() {
        await().atMost(Duration.ofSeconds(30)).until(() -> probe("ready") == 200);
        String load = newLoadId();
        String sms = smsAnswered(load);

        PostgresTestResource.link().reset();
        Staging.etaAsk(workers(), load, clock.instant());

        long cut = System.nanoTime();
        await().atMost(RECOVERY).pollInterval(Duration.ofMillis(200)).until(() -> probe("ready") == 200);
        System.out.printf("dispatcher ready %d ms after every connection was cut%n",
                Duration.ofNanos(System.nanoTime() - cut).toMillis());
        assertThat(probe("live")).isEqualTo(200);
        Staging.awaitStatus(outbox, sms, OutboxStatus.DISPATCHED);
        WireMockChannels.server().verify(1, postRequestedFor(urlEqualTo("/sms/messages"))
                .withHeader("Idempotency-Key", equalTo(sms)));
    }
}
