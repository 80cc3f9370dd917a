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
import static org.hamcrest.Matchers.is;

/**
 * As on Kubernetes before the migration Job ran: the service does not migrate, starts anyway,
 * stays live, and reports not ready because migrations are pending.
 */
@QuarkusTest
@TestProfile(NotReadyUntilMigratedTest.NoMigrationAtStart.class)
@WithTestResource(value = PostgresTestResource.class,
        initArgs = @ResourceArg(name = PostgresTestResource.MIGRATE, value = "false"))
class NotReadyUntilMigratedTest {

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
                .body("checks.find { it.name == 'loadflow-migrations' }.data.pending", is(Migrations.count()));
        management().when().get("/q/health/live").then().statusCode(200);
    }
}
