package dev.loadflow.service.testing;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static dev.loadflow.service.testing.Management.management;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every loadflow service answers an operator, over real HTTP: readiness means the
 * database is reachable and every migration is applied; liveness; Prometheus metrics.
 * Each service runs it as a {@code @QuarkusTest} and, packaged, as a {@code @QuarkusIntegrationTest}.
 */
public abstract class ServiceHealthContract {

    private static final Pattern LOADFLOW_METRIC = Pattern.compile("^(loadflow_[a-z_]+)", Pattern.MULTILINE);

    /** The service's module name, which also names its list of exported metrics. */
    protected abstract String service();

    @Test
    public final void healthAndMetricsAreServedOnTheManagementPortOnly() {
        given().when().get("/q/metrics").then().statusCode(404);
        given().when().get("/q/health/ready").then().statusCode(404);
        management().when().get("/q/health/live").then().statusCode(200);
    }

    @Test
    public final void readyWhenTheDatabaseIsReachableAndEveryMigrationIsApplied() {
        management().when().get("/q/health/ready")
                .then().statusCode(200)
                .body("status", is("UP"))
                .body("checks.name", hasItem("loadflow-migrations"))
                .body("checks.find { it.name == 'loadflow-migrations' }.status", is("UP"))
                .body("checks.find { it.name == 'loadflow-migrations' }.data.pending", is(0))
                .body("checks.find { it.name == 'loadflow-migrations' }.data.schemaVersion", is(Migrations.latest()))
                .body("checks.name", hasItem("Reactive PostgreSQL connections health check"));
    }

    @Test
    public final void live() {
        management().when().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
    }

    @Test
    public final void answersTheStartupProbe() {
        management().when().get("/q/health/started").then().statusCode(200).body("status", is("UP"));
    }

    /**
     * The service exports exactly the {@code loadflow_*} metrics its list in
     * {@code deploy/src/test/resources/exported-metrics/} names. The deploy checks read those lists
     * to verify that every alert and dashboard query names a metric a service really exports, so
     * a metric added or renamed here must be added or renamed there.
     */
    @Test
    public final void exportsPrometheusMetrics() throws IOException {
        String scrape = management().when().get("/q/metrics").then().statusCode(200)
                .body(containsString("jvm_memory_used_bytes")).extract().asString();
        Set<String> exported = new TreeSet<>();
        LOADFLOW_METRIC.matcher(scrape).results().forEach(m -> exported.add(m.group(1)));
        Path listed = Path.of("..", "deploy", "src", "test", "resources", "exported-metrics", service() + ".txt");
        assertThat(new TreeSet<>(Files.readAllLines(listed))).as("the loadflow metrics %s exports, listed in %s", service(), listed)
                .isEqualTo(exported);
    }


}
