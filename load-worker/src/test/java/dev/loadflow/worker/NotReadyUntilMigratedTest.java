package dev.loadflow.worker;

import dev.loadflow.service.testing.Migrations;
import dev.loadflow.service.testing.PostgresTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static dev.loadflow.service.testing.Management.management;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.is;

/**
 * As on Kubernetes before the migration Job ran (or when it failed): the service does not
 * migrate, starts anyway, stays live, reports not ready because migrations are pending, and
 * runs no loop on the old schema (the schema gate).
 */
@QuarkusTest
@TestProfile(NotReadyUntilMigratedTest.NoMigrationAtStart.class)
@WithTestResource(value = PostgresTestResource.class,
        initArgs = @ResourceArg(name = PostgresTestResource.MIGRATE, value = "false"))
class NotReadyUntilMigratedTest {

    @jakarta.inject.Inject
    dev.loadflow.worker.consume.QueueConsumer consumer;

    public static class NoMigrationAtStart implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("loadflow.db.migrate-at-start", "false");
        }
    }

    @Test
    void notReadyWhileAMigrationIsPendingButStillLive() {
        management().when().get("/q/health/ready")
                .then().statusCode(503)
                .body("status", is("DOWN"))
                .body("checks.find { it.name == 'loadflow-migrations' }.status", is("DOWN"))
                .body("checks.find { it.name == 'loadflow-migrations' }.data.schemaVersion", is("none"))
                .body("checks.find { it.name == 'loadflow-migrations' }.data.pending", is(Migrations.count()))
                .body("checks.find { it.name == 'loadflow-migrations' }.data.standing", is("behind"))
                .body("checks.find { it.name == 'loadflow-load-queue-consumer' }", is((Object) null))
                .body("checks.find { it.name == 'load-queue-consumer' }.status", is("DOWN"));
        management().when().get("/q/health/live").then().statusCode(200);
        assertThat(consumer.loop().running()).as("no loop runs on a schema behind this build").isFalse();
    }
}
