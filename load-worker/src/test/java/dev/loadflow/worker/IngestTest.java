package dev.loadflow.worker;

import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.testing.TestCallers;
import dev.loadflow.testing.TestDatabase;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import static dev.loadflow.service.testing.Management.management;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.asOperator;
import static dev.loadflow.worker.LoadApi.asSource;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.ping;
import static dev.loadflow.worker.LoadApi.post;
import static dev.loadflow.worker.LoadApi.sms;
import static io.restassured.RestAssured.given;
import static dev.loadflow.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class IngestTest {

    private static TestDatabase db() {
        return PostgresTestResource.current();
    }

    private static List<String> outboxIds(String load) {
        return db().rows("SELECT outbox_id FROM outbox WHERE load_id = ? ORDER BY outbox_id", load).stream()
                .map(r -> (String) r.get("outbox_id")).toList();
    }

    private static long rows(String table, String load) {
        return db().rows("SELECT count(*) AS n FROM " + table + " WHERE load_id = ?", load).get(0).get("n") instanceof Long n ? n : -1;
    }

    @Test
    void assignedThenAHighRiskPingLogsBothAndWritesTheAsksOutboxRowsWithThePinnedIds() {
        String load = newLoadId();

        asSource().contentType("application/json").body(assigned("assign_1"))
                .when().post("/loads/{loadId}/events", load)
                .then().statusCode(202).body("status", is("queued")).body("eventId", is("assign_1"));
        assertThat(post(load, ping("ping_0700", "high"))).isEqualTo(202);

        JsonPath view = awaitVersion(load, 4);
        assertThat(view.getList("log.type")).containsExactly("LoadAssigned", "DecisionRecorded", "LocationPing", "DecisionRecorded");
        assertThat(view.getList("log.entryId")).containsExactly("assign_1", "dec:assign_1", "ping_0700", "dec:ping_0700");
        assertThat(view.getList("log[3].body.actions.type")).containsExactly("send_sms", "set_timer");
        assertThat(view.getString("state.openAsks[0].askId")).isEqualTo("ask:eta_request:ping_0700");
        assertThat(view.getInt("state.openAsks[0].step")).isEqualTo(1);
        assertThat(outboxIds(load)).containsExactly(
                load + "/ask:eta_request:ping_0700/1/send_sms",
                load + "/ask:eta_request:ping_0700/1/set_timer");

        // one transaction: the ping, its decision and both rows carry the same commit time
        Instant loggedAt = Instant.parse(view.getString("log[2].recordedAt"));
        for (var row : db().rows("SELECT created_at, causation_id, payload->>'fireAt' AS fire_at, action_type"
                + " FROM outbox WHERE load_id = ?", load)) {
            assertThat(((java.sql.Timestamp) row.get("created_at")).toInstant()).isEqualTo(loggedAt);
            assertThat(row.get("causation_id")).isEqualTo("ping_0700");
            if (row.get("action_type").equals("set_timer")) {
                Instant decidedAt = Instant.parse(view.getString("log[3].body.decidedAt"));
                assertThat(Instant.parse((String) row.get("fire_at"))).isEqualTo(decidedAt.plus(Duration.ofMinutes(30)));
            }
        }
    }

    @Test
    void theSameEventPostedAgainChangesNothing() {
        String load = newLoadId();
        post(load, assigned("assign_1"));
        post(load, ping("ping_0700", "high"));
        awaitVersion(load, 4);

        asSource().contentType("application/json").body(ping("ping_0700", "high"))
                .when().post("/loads/{loadId}/events", load)
                .then().statusCode(200).body("status", is("already processed"));

        assertThat(asOperator().get("/loads/{loadId}", load).then().extract().jsonPath().getInt("version")).isEqualTo(4);
        assertThat(outboxIds(load)).hasSize(2);
        assertThat(rows("load_queue", load)).isZero();
    }

    /**
     * Concurrent requests are queued together (ingest's group commit); each event still ends as it would alone.
     * Tagged {@code once}: the packaged service runs the same group commit, so {@link IngestIT} leaves it out.
     */
    @Test
    @Tag("once")
    void concurrentRequestsQueueEachEventOnceAndAnswerEachAsAlone() throws Exception {
        int loads = 30;
        int copies = 3;
        List<String> loadIds = IntStream.range(0, loads).mapToObj(i -> newLoadId()).toList();
        List<Callable<Integer>> requests = new ArrayList<>();
        for (String load : loadIds) {
            for (int copy = 0; copy < copies; copy++) {
                requests.add(() -> post(load, assigned("assign_1")));
            }
        }
        Collections.shuffle(requests, new Random(7));
        List<Integer> statuses = new ArrayList<>();
        try (ExecutorService senders = Executors.newFixedThreadPool(16)) {
            for (Future<Integer> status : senders.invokeAll(requests)) {
                statuses.add(status.get());
            }
        }

        // a copy that arrives while the first is being logged and acked may be queued again (202):
        // its run finds the event logged and changes nothing
        assertThat(statuses).as("every request answered as queued, already queued or already processed")
                .allMatch(s -> s == 202 || s == 200);
        assertThat(statuses.stream().filter(s -> s == 202).count()).isBetween((long) loads, (long) loads * copies);
        for (String load : loadIds) {
            assertThat(awaitVersion(load, 2).getList("log.entryId")).as("each event logged once")
                    .containsExactly("assign_1", "dec:assign_1");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(rows("load_queue", load)).as("every copy's message done with").isZero());
        }
    }

    /** One request's bad byte (PostgreSQL's jsonb refuses U+0000) must not fail the requests written beside it. */
    @Test
    @Tag("once")
    void badRequestsPostedBesideGoodOnesFailAloneAndEveryGoodOneIsQueuedAndLogged() throws Exception {
        List<String> good = IntStream.range(0, 40).mapToObj(i -> newLoadId()).toList();
        List<String> bad = IntStream.range(0, 10).mapToObj(i -> newLoadId()).toList();
        List<Callable<Integer>> requests = new ArrayList<>();
        good.forEach(load -> requests.add(() -> post(load, assigned("assign_1"))));
        bad.forEach(load -> requests.add(() -> post(load, sms("sms_1", "ETA\\u0000 9:30"))));
        Collections.shuffle(requests, new Random(11));
        List<Integer> statuses = new ArrayList<>();
        try (ExecutorService senders = Executors.newFixedThreadPool(25)) {
            for (Future<Integer> status : senders.invokeAll(requests)) {
                statuses.add(status.get());
            }
        }

        assertThat(statuses).filteredOn(s -> s == 202).hasSize(40);
        assertThat(statuses).filteredOn(s -> s == 400).hasSize(10);
        for (String load : good) {
            assertThat(awaitVersion(load, 2).getList("log.entryId")).containsExactly("assign_1", "dec:assign_1");
        }
        for (String load : bad) {
            assertThat(rows("load_queue", load)).isZero();
            assertThat(rows("event_log", load)).isZero();
        }
    }

    @Test
    void aBodyOverSixtyFourKibibytesIsRefusedWith413AndNothingIsWritten() {
        String load = newLoadId();
        String padded = sms("sms_1", "hi").replace("\"occurredAt\"", "\"causationId\": null, " + " ".repeat(65 * 1024)
                + "\"occurredAt\"");

        asSource().contentType("application/json").body(padded)
                .when().post("/loads/{loadId}/events", load)
                .then().statusCode(413)
                .contentType("application/problem+json")
                .body("detail", containsString("at most 65536 bytes"));
        assertThat(rows("load_queue", load)).isZero();
    }

    @Test
    void aSourceMayPostOnlyTheEventTypesItOwns() {
        String load = newLoadId();
        post(load, assigned("assign_1"));
        awaitVersion(load, 2);

        given().auth().oauth2(TestCallers.SMS_GATEWAY_TOKEN).contentType("application/json")
                .body(assigned("assign_2").replace("+15550100", "+15550199"))
                .when().post("/loads/{loadId}/events", load)
                .then().statusCode(403)
                .contentType("application/problem+json")
                .body("field", is("type"))
                .body("detail", is("source sms-gateway may not post LoadAssigned events"));
        given().auth().oauth2(TestCallers.SMS_GATEWAY_TOKEN).contentType("application/json").body(sms("sms_1", "ETA 9:30"))
                .when().post("/loads/{loadId}/events", load)
                .then().statusCode(202);

        JsonPath view = awaitVersion(load, 4);
        assertThat(view.getList("log.entryId")).containsExactly("assign_1", "dec:assign_1", "sms_1", "dec:sms_1");
        assertThat(view.getString("log[2].body.source")).isEqualTo(TestCallers.SMS_GATEWAY);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "malformed body | {\"eventId\": \"e1\", \"type\": | $ | malformed JSON",
            "unknown type   | {\"eventId\":\"e1\",\"type\":\"Teleport\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{}} | type | unknown event type 'Teleport'",
            "bad timestamp  | {\"eventId\":\"e1\",\"type\":\"LocationPing\",\"occurredAt\":\"30/11/2026 07:00\",\"payload\":{\"risk\":\"high\",\"lat\":1,\"lon\":1}} | occurredAt | not an ISO-8601 timestamp",
            "missing field  | {\"eventId\":\"e1\",\"type\":\"InboundSms\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"text\":\"hi\"}} | payload.from | missing",
            "internal type  | {\"eventId\":\"e1\",\"type\":\"ActionOutcome\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{}} | type | never through ingest",
            "long ago       | {\"eventId\":\"e1\",\"type\":\"LocationPing\",\"occurredAt\":\"2000-01-01T00:00:00Z\",\"payload\":{\"risk\":\"high\",\"lat\":1,\"lon\":1}} | occurredAt | must be within",
            "far ahead      | {\"eventId\":\"e1\",\"type\":\"LocationPing\",\"occurredAt\":\"9999-12-31T23:59:59Z\",\"payload\":{\"risk\":\"high\",\"lat\":1,\"lon\":1}} | occurredAt | must be within",
    })
    void badEventsGet400NamingTheProblemAndNothingIsWritten(String problem, String body, String field, String detail) {
        String load = newLoadId();

        asSource().contentType("application/json").body(body)
                .when().post("/loads/{loadId}/events", load)
                .then().statusCode(400)
                .contentType("application/problem+json")
                .body("status", is(400))
                .body("title", is("Invalid event"))
                .body("field", is(field))
                .body("detail", containsString(detail));

        assertThat(rows("load_queue", load)).isZero();
        assertThat(rows("event_log", load)).isZero();
        asOperator().get("/loads/{loadId}", load).then().statusCode(404).contentType("application/problem+json");
    }

    @Test
    void aLoadIdOutsideTheAlphabetIsRefused() {
        asSource().contentType("application/json").body(ping("ping_0700", "high"))
                .when().post("/loads/{loadId}/events", "load.one")
                .then().statusCode(400).body("field", is("loadId"));
        asOperator().get("/loads/{loadId}", "load.one").then().statusCode(400).body("field", is("loadId"));
    }

    /** What the framework refuses before ingest runs is a problem+json as well, and nothing is queued. */
    @Test
    void aRequestIngestDoesNotTakeIsAProblemAndNothingIsQueued() {
        String load = newLoadId();

        asSource().contentType("text/plain").body("ping").when().post("/loads/{loadId}/events", load)
                .then().statusCode(415).contentType("application/problem+json").body("detail", containsString("text/plain"));
        asSource().when().put("/loads/{loadId}/events", load)
                .then().statusCode(405).contentType("application/problem+json").body("detail", containsString("PUT"));
        asSource().contentType("application/json").accept("application/xml").body(ping("ping_0700", "high"))
                .when().post("/loads/{loadId}/events", load)
                .then().statusCode(406).contentType("application/problem+json");

        assertThat(rows("load_queue", load)).isZero();
    }

    @Test
    void runMetricsAndQueueGaugesAreExported() {
        String load = newLoadId();
        post(load, assigned("assign_1"));
        awaitVersion(load, 2);

        String metrics = management().get("/q/metrics").then().statusCode(200).extract().asString();
        assertThat(metrics).contains("loadflow_worker_runs_total{result=\"decided\"}")
                .contains("loadflow_worker_runs_total{result=\"conflict_retried\"}")
                .contains("loadflow_worker_conflicts_total")
                .contains("loadflow_worker_run_duration_seconds_bucket")
                .contains("loadflow_queue_depth")
                .contains("loadflow_queue_oldest_age_seconds");
        List<String> decided = metrics.lines().filter(l -> l.startsWith("loadflow_worker_runs_total{result=\"decided\"}")).toList();
        assertThat(Double.parseDouble(decided.get(0).split(" ")[1])).isGreaterThanOrEqualTo(1);
    }
}
