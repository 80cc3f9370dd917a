package dev.loadflow.service.testing;

import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;

/**
 * What every loadflow service answers an operator, over real HTTP: readiness means the
 * database is reachable and every migration is applied; liveness; Prometheus metrics.
 * Each service runs it as a {@code @QuarkusTest} and, packaged, as a {@code @QuarkusIntegrationTest}.
 */
public abstract class ServiceHealthContract {

    @Test
    public final void readyWhenTheDatabaseIsReachableAndEveryMigrationIsApplied() {
        given().when().get("/q/health/ready")
                .then().statusCode(200)
                .body("status", is("UP"))
                .body("checks.name", hasItem("loadflow-migrations"))
                .body("checks.find { it.name == 'loadflow-migrations' }.status", is("UP"))
                .body("checks.find { it.name == 'loadflow-migrations' }.data.pending", is(0))
                .body("checks.find { it.name == 'loadflow-migrations' }.data.schemaVersion", is("4"))
                .body("checks.name", hasItem("Reactive PostgreSQL connections health check"));
    }

    @Test
    public final void live() {
        given().when().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
    }

    @Test
    public final void answersTheStartupProbe() {
        given().when().get("/q/health/started").then().statusCode(200).body("status", is("UP"));
    }

    /**
     * The scrape is also saved to {@code target/exported-metrics.txt}: the deploy checks verify
     * that every alert and dashboard query names a metric a service really exports.
     */
    @Test
    public final void exportsPrometheusMetrics() throws java.io.IOException {
        String scrape = given().when().get("/q/metrics").then().statusCode(200)
                .body(containsString("jvm_memory_used_bytes")).extract().asString();
        java.nio.file.Files.writeString(java.nio.file.Path.of("target", "exported-metrics.txt"), scrape);
    }
}
