package dev.loadflow.worker;

import dev.loadflow.service.health.SchemaGate;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.worker.consume.QueueConsumer;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static dev.loadflow.service.testing.Management.management;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;
import static org.hamcrest.Matchers.is;

/**
 * The schema gate as an upgrade meets it: a migration of a newer release that keeps this build
 * working (expand) leaves it consuming and ready; one that raises the schema's floor past this
 * build (contract) stops its consumer and makes it not ready, while it stays live for the new
 * release's pods to replace it.
 */
@QuarkusTest
@TestProfile(SchemaGateTest.OwnDatabase.class)
@WithTestResource(PostgresTestResource.class)
class SchemaGateTest {

    /** A database of its own: the test moves its schema ahead. */
    public static class OwnDatabase implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("loadflow.db.schema-check", "PT1H");
        }
    }

    @Inject
    SchemaGate gate;

    @Inject
    QueueConsumer consumer;

    @Test
    void aNewerReleasesExpandKeepsThisBuildRunningAndItsContractStopsIt() {
        await().atMost(Duration.ofSeconds(20)).until(() -> consumer.loop().running());
        int build = gate.reading().build();
        assertThat(gate.reading().standing()).isEqualTo(SchemaGate.Standing.CURRENT);
        assertThat(metric("loadflow_schema_gate_open")).isEqualTo(1.0);

        // the next release's migration, applied by its Job: an expand
        PostgresTestResource.current().execute("""
                INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum,
                                                   installed_by, execution_time, success)
                SELECT max(installed_rank) + 1, '%d', 'next release expand', 'SQL', 'V%d__next_release_expand.sql', 0,
                       'loadflow', 1, true
                FROM flyway_schema_history""".formatted(build + 1, build + 1));

        assertThat(gate.look().standing()).isEqualTo(SchemaGate.Standing.AHEAD_COMPATIBLE);
        assertThat(consumer.loop().running()).as("still consuming").isTrue();
        management().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'loadflow-migrations' }.data.standing", is("ahead_compatible"));
        assertThat(metric("loadflow_schema_version{of=\"database\"}")).isEqualTo(build + 1.0);

        // the release after: its contract raises the floor past this build
        PostgresTestResource.current().execute("UPDATE schema_floor SET lowest_build = " + (build + 1));

        assertThat(gate.look().standing()).isEqualTo(SchemaGate.Standing.AHEAD_PAST);
        assertThat(consumer.loop().running()).as("its loops stopped").isFalse();
        management().get("/q/health/ready").then().statusCode(503)
                .body("checks.find { it.name == 'loadflow-migrations' }.status", is("DOWN"))
                .body("checks.find { it.name == 'loadflow-migrations' }.data.standing", is("ahead_past"))
                .body("checks.find { it.name == 'loadflow-migrations' }.data.floor", is(Integer.toString(build + 1)));
        management().get("/q/health/live").then().statusCode(200);
        assertThat(metric("loadflow_schema_gate_open")).isZero();
    }

    /** The value of the exported series {@code series} ({@code name} or {@code name{labels}}, as exported). */
    private static double metric(String series) {
        String text = management().get("/q/metrics").then().statusCode(200).extract().asString();
        return text.lines().filter(line -> line.startsWith(series + " "))
                .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst().orElseThrow(() -> new AssertionError(series + " not exported in:\n" + text.lines()
                        .filter(line -> line.startsWith("loadflow_schema")).toList()));
    }
}
