package dev.loadflow.worker;

import dev.loadflow.service.retention.RetentionJob;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.testing.TestDatabase;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.loadflow.service.testing.Management.management;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.ping;
import static dev.loadflow.worker.LoadApi.post;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * The worker's retention as it runs in the service: a load idle past {@code loadflow.retention.log}
 * leaves the hot log, the operator's view still tells its whole story, and a late event for it is
 * decided against that story (a redelivered ping stays a duplicate, a new one opens its ask).
 */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class LogRetentionTest {

    @Inject
    RetentionJob retention;

    private static TestDatabase db() {
        return PostgresTestResource.current();
    }

    private static double removedFromTheLog() {
        String line = management().get("/q/metrics").then().statusCode(200).extract().asString().lines()
                .filter(l -> l.startsWith("loadflow_retention_rows_removed_total{") && l.contains("table=\"event_log\""))
                .findFirst().orElseThrow();
        return Double.parseDouble(line.split(" ")[1]);
    }

    @Test
    void anIdleLoadIsArchivedAndALateEventIsDecidedAgainstItsWholeLog() {
        String load = newLoadId();
        assertThat(post(load, assigned("assign_1"))).isEqualTo(202);
        assertThat(post(load, ping("ping_low", "low"))).isEqualTo(202);
        awaitVersion(load, 4);
        db().execute("UPDATE event_log SET recorded_at = recorded_at - interval '100 days' WHERE load_id = '" + load + "'");
        double before = removedFromTheLog();

        assertThat(retention.run()).containsEntry("event_log", 4L).containsKey("load_queue_dead");

        assertThat(db().count("SELECT count(*) FROM event_log WHERE load_id = '" + load + "'")).isEqualTo(1);
        assertThat(removedFromTheLog() - before).isEqualTo(4.0);
        JsonPath view = awaitVersion(load, 5);
        assertThat(view.getList("log.entryId")).containsExactly("assign_1", "dec:assign_1", "ping_low", "dec:ping_low",
                "archived:4");

        assertThat(post(load, ping("ping_low", "low"))).as("the hot log no longer knows it: queued, then found done")
                .isEqualTo(202);
        assertThat(post(load, ping("ping_high", "high"))).isEqualTo(202);
        JsonPath after = awaitVersion(load, 7);
        assertThat(after.getList("log.entryId")).containsExactly("assign_1", "dec:assign_1", "ping_low", "dec:ping_low",
                "archived:4", "ping_high", "dec:ping_high");
        assertThat(after.getString("state.openAsks[0].askId")).isEqualTo("ask:eta_request:ping_high");
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() ->
                db().count("SELECT count(*) FROM load_queue WHERE load_id = '" + load + "'") == 0);
        assertThat(db().count("SELECT count(*) FROM event_log WHERE load_id = '" + load + "' AND entry_id LIKE 'ping_low%'"))
                .as("the redelivered ping was not logged again").isZero();
    }
}
