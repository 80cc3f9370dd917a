package dev.loadflow.worker;

import dev.loadflow.service.testing.PostgresTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.asSource;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.ping;
import static dev.loadflow.worker.LoadApi.post;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * The database goes away and comes back, as on Kubernetes during a failover: the service starts
 * without it and waits, not ready, instead of exiting into a crash loop; an outage longer than
 * the liveness window (ten poll waits, three link timeouts and the longest backoff: 10 s here,
 * 55 s with the defaults) leaves it live, so Kubernetes does not restart it, and not ready, so it
 * gets no traffic; when the database answers again the work goes on with nothing lost, and the
 * outage leaves no stream of errors from the pool.
 */
@QuarkusTest
@TestProfile(DatabaseOutageTest.LogToFileShortWindow.class)
@WithTestResource(LateDatabase.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DatabaseOutageTest {

    static final Path LOG = Path.of("target", "database-outage-test.log");
    private static final Duration POLL_WAIT = Duration.ofMillis(200);
    private static final Duration LINK_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration LIVENESS_WINDOW = POLL_WAIT.multipliedBy(10).plus(LINK_TIMEOUT.multipliedBy(3))
            .plus(PostgresTestResource.OUTAGE_BACKOFF);
    private static final String LOAD = newLoadId();

    public static class LogToFileShortWindow implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.log.file.enabled", "true", "quarkus.log.file.path", LOG.toString(),
                    "loadflow.worker.poll-wait", POLL_WAIT.toString(), "loadflow.db.link-timeout", LINK_TIMEOUT.toString());
        }
    }

    private static int health(String which) {
        return given().port(LateDatabase.managementPort()).get("/q/health/" + which).then().extract().statusCode();
    }

    @Test
    @Order(1)
    void startedWithoutItsDatabaseTheServiceStaysUpNotReadyAndIsReadySoonAfterItAnswers() {
        await().atMost(Duration.ofSeconds(10)).until(() -> health("live") == 200);
        assertThat(health("ready")).as("no database: not ready").isEqualTo(503);

        LateDatabase.up();

        await().atMost(Duration.ofSeconds(45)).until(() -> health("ready") == 200);
        assertThat(post(LOAD, assigned("assign_1"))).isEqualTo(202);
        assertThat(awaitVersion(LOAD, 2).getList("log.entryId")).containsExactly("assign_1", "dec:assign_1");
    }

    @Test
    @Order(2)
    void anOutageLongerThanTheLivenessWindowLeavesTheServiceLiveAndLosesNothing() throws IOException {
        LateDatabase.down();

        await().atMost(Duration.ofSeconds(15)).until(() -> health("ready") == 503);
        var refused = asSource().contentType("application/json").body(ping("ping_0700", "high"))
                .post("/loads/{loadId}/events", LOAD).then().extract();
        assertThat(refused.statusCode()).as("ingest refused while the database is away: come back").isEqualTo(503);
        assertThat(refused.header("Retry-After")).isEqualTo("5");
        assertThat(refused.contentType()).startsWith("application/problem+json");
        await().during(LIVENESS_WINDOW.plusSeconds(5)).atMost(LIVENESS_WINDOW.plusSeconds(15))
                .until(() -> health("live") == 200);

        LateDatabase.up();

        await().atMost(Duration.ofSeconds(45)).until(() -> health("ready") == 200);
        assertThat(post(LOAD, ping("ping_0700", "high"))).as("the source sends it again").isEqualTo(202);
        JsonPath view = awaitVersion(LOAD, 4);
        assertThat(view.getList("log.entryId")).containsExactly("assign_1", "dec:assign_1", "ping_0700", "dec:ping_0700");
        assertThat(Files.readString(LOG)).as("the pool's timers after failed connection attempts")
                .doesNotContain("Result is already complete");
    }
}
