package dev.loadflow.service.testing;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.model.json.JsonReader;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

    /**
     * The service's API is described by an OpenAPI document on the management port, and every
     * operation in it says what it answers: a success response with a schema for each of its media
     * types (a {@code 204} without content), and its refusals as problem documents. A new
     * endpoint that returns an untyped {@code Response} fails here.
     */
    @Test
    public final void everyEndpointIsDescribedWithTheSchemaOfItsAnswer() throws IOException {
        JsonNode document = JsonReader.MAPPER.readTree(management().get("/q/openapi?format=json").then().statusCode(200)
                .extract().asString());
        List<String> undescribed = new ArrayList<>();
        int operations = 0;
        for (Map.Entry<String, JsonNode> path : document.path("paths").properties()) {
            for (Map.Entry<String, JsonNode> operation : path.getValue().properties()) {
                if (!HTTP_METHODS.contains(operation.getKey())) {
                    continue;
                }
                operations++;
                String name = operation.getKey().toUpperCase(java.util.Locale.ROOT) + " " + path.getKey();
                List<Map.Entry<String, JsonNode>> successes = operation.getValue().path("responses").properties().stream()
                        .filter(r -> r.getKey().startsWith("2")).toList();
                if (successes.isEmpty()) {
                    undescribed.add(name + ": no success response");
                }
                for (Map.Entry<String, JsonNode> success : successes) {
                    JsonNode content = success.getValue().path("content");
                    if (content.isEmpty() && !success.getKey().equals("204")) {
                        undescribed.add(name + ": " + success.getKey() + " has no content");
                    }
                    for (Map.Entry<String, JsonNode> media : content.properties()) {
                        JsonNode schema = media.getValue().path("schema");
                        if (!schema.has("$ref") && !schema.has("type") && !schema.has("oneOf")) {
                            undescribed.add(name + ": " + success.getKey() + " " + media.getKey() + " has no schema");
                        }
                    }
                }
            }
        }
        assertThat(operations).as("operations described").isPositive();
        assertThat(undescribed).as("operations whose answer has no schema").isEmpty();
        assertThat(document.path("components").path("schemas").has("Problem"))
                .as("refusals are described as problem documents").isTrue();
    }

    private static final Set<String> HTTP_METHODS = Set.of("get", "put", "post", "delete", "patch");

}
