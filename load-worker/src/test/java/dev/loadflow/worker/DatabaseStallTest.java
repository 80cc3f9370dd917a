package dev.loadflow.worker;

import dev.loadflow.service.testing.PostgresTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.config.HttpClientConfig;
import io.restassured.config.RestAssuredConfig;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.asSource;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.ping;
import static dev.loadflow.worker.LoadApi.post;
import static dev.loadflow.service.testing.Management.probe;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * The link to PostgreSQL goes silent (a black hole: no reset, no answer, the connections it
 * held dead for good) or is cut, and comes back: the worker stays live throughout, answers
 * ingest with 503 while it cannot reach the database, and is ready again within 10 s of the
 * link's recovery, its work going on.
 */
@QuarkusTest
@WithTestResource(value = PostgresTestResource.class, initArgs = @ResourceArg(name = PostgresTestResource.LINK, value = "flowing"))
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DatabaseStallTest {

    private static final Duration RECOVERY = Duration.ofSeconds(10);

    @Test
    @Order(1)
    void aStalledLinkLeavesTheWorkerLiveRefusingIngestAndReadyWithinTenSecondsOfItsRecovery() {
        String load = newLoadId();
        await().atMost(Duration.ofSeconds(30)).until(() -> probe("ready") == 200);
        assertThat(post(load, assigned("assign_1"))).isEqualTo(202);
        awaitVersion(load, 2);

        PostgresTestResource.link().stall();

        var refused = asSource().config(RestAssuredConfig.config().httpClient(HttpClientConfig.httpClientConfig()
                        .setParam("http.socket.timeout", 30_000)))
                .contentType("application/json").body(ping("ping_0700", "high"))
                .post("/loads/{loadId}/events", load).then().extract();
        assertThat(refused.statusCode()).as("ingest while the database cannot be reached: come back").isEqualTo(503);
        assertThat(refused.header("Retry-After")).isNotNull();
        await().atMost(Duration.ofSeconds(20)).until(() -> probe("ready") != 200);
        await().during(Duration.ofSeconds(15)).atMost(Duration.ofSeconds(25)).until(() -> probe("live") == 200);

        PostgresTestResource.link().heal();

        long healed = System.nanoTime();
        await().atMost(RECOVERY).pollInterval(Duration.ofMillis(200)).until(() -> probe("ready") == 200);
        Duration took = Duration.ofNanos(System.nanoTime() - healed);
        System.out.printf("ready %d ms after the link's recovery%n", took.toMillis());
        assertThat(post(load, ping("ping_0700", "high"))).as("the source sends it again").isEqualTo(202);
        assertThat(awaitVersion(load, 4).getList("log.entryId"))
                .containsExactly("assign_1", "dec:assign_1", "ping_0700", "dec:ping_0700");
    }

    @Test
    @Order(2)
    void everyConnectionCutAtOnceLeavesTheWorkerReadyAndWorkingWithinTenSeconds() {
        String load = newLoadId();
        await().atMost(Duration.ofSeconds(30)).until(() -> probe("ready") == 200);

        PostgresTestResource.link().reset();

        long cut = System.nanoTime();
        await().atMost(RECOVERY).pollInterval(Duration.ofMillis(200))
                .until(() -> probe("ready") == 200 && post(load, assigned("assign_1")) == 202);
        System.out.printf("ready and ingesting %d ms after every connection was cut%n",
                Duration.ofNanos(System.nanoTime() - cut).toMillis());
        assertThat(probe("live")).isEqualTo(200);
        awaitVersion(load, 2);
    }
}
