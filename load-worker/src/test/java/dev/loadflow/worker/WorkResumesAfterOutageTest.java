package dev.loadflow.worker;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.testing.Waits.await;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.ping;
import static dev.loadflow.worker.LoadApi.post;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the shipped loop settings (backoffs doubling to 30 s), an outage long enough for the loops
 * to reach their longest backoff does not hold the work back once PostgreSQL answers again: an
 * event ingested then is decided within 10 s of the database's return, not after the rest of a
 * 30 s backoff.
 */
@QuarkusTest
@TestProfile(WorkResumesAfterOutageTest.ShippedBackoff.class)
@WithTestResource(WorkResumesAfterOutageTest.LateDatabaseShippedBackoff.class)
class WorkResumesAfterOutageTest {

    /** The outage: past the time the loops take to reach their longest backoff (0.5 + 1 + … + 16 s, then 30 s). */
    private static final Duration OUTAGE = Duration.ofSeconds(45);

    public static class ShippedBackoff implements QuarkusTestProfile {
    }

    /** {@link LateDatabase} without the shorter backoff the other outage tests use. */
    public static class LateDatabaseShippedBackoff extends LateDatabase {
        @Override
        public Map<String, String> start() {
            Map<String, String> config = new HashMap<>(super.start());
            config.remove("loadflow.loop.max-backoff");
            return config;
        }
    }

    private static int ready() {
        return given().port(LateDatabase.managementPort()).get("/q/health/ready").then().extract().statusCode();
    }

    @Test
    void anEventIngestedWhenTheDatabaseIsBackIsDecidedWithinTenSecondsOfItsReturn() {
        String load = newLoadId();
        LateDatabase.up();
        await().atMost(Duration.ofSeconds(60)).until(() -> ready() == 200);
        assertThat(post(load, assigned("assign_1"))).isEqualTo(202);
        awaitVersion(load, 2);

        LateDatabase.down();
        await().atMost(Duration.ofSeconds(20)).until(() -> ready() == 503);
        await().during(OUTAGE).atMost(OUTAGE.plusSeconds(10)).until(() -> ready() == 503);
        LateDatabase.up();

        // from the database's return: ready, the event taken (a copy sent again is the same event), and decided
        await().atMost(Duration.ofSeconds(10)).until(() -> ready() == 200
                && post(load, ping("ping_0700", "high")) / 100 == 2
                && LoadApi.asOperator().get("/loads/{loadId}", load).then().extract().jsonPath().getInt("version") >= 4);

        assertThat(awaitVersion(load, 4).getList("log.entryId")).containsExactly("assign_1", "dec:assign_1", "ping_0700",
                "dec:ping_0700");
    }
}
