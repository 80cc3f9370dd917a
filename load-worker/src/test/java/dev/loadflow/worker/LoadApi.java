package dev.loadflow.worker;

import dev.loadflow.service.testing.TestCallers;
import dev.loadflow.store.pg.Pg;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.restassured.RestAssured.given;
import static dev.loadflow.testing.Waits.await;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;

/** What an operator or a sender does over HTTP, and what an operator sees in the database. */
final class LoadApi {

    private LoadApi() {
    }

    static String assigned(String eventId) {
        return """
                {"eventId": "%s", "type": "LoadAssigned", "occurredAt": "2026-11-30T06:55:00Z",
                 "payload": {"clientId": "client-a", "driverPhone": "+15550100", "stage": "dispatched"}}""".formatted(eventId);
    }

    static String ping(String eventId, String risk) {
        return """
                {"eventId": "%s", "type": "LocationPing", "occurredAt": "2026-11-30T07:00:00Z", "correlationId": "c-1",
                 "payload": {"risk": "%s", "lat": 41.9, "lon": -87.6}}""".formatted(eventId, risk);
    }

    static String sms(String eventId, String text) {
        return """
                {"eventId": "%s", "type": "InboundSms", "occurredAt": "2026-11-30T07:10:00Z",
                 "payload": {"from": "+15550100", "text": "%s"}}""".formatted(eventId, text);
    }

    /** A request from the test source, with its ingest token. */
    static RequestSpecification asSource() {
        return given().auth().oauth2(TestCallers.INGEST_TOKEN);
    }

    /** A request from an operator (phone numbers unmasked). */
    static RequestSpecification asOperator() {
        return given().auth().oauth2(TestCallers.operator());
    }

    static int post(String loadId, String body) {
        return asSource().contentType("application/json").body(body)
                .when().post("/loads/{loadId}/events", loadId)
                .then().extract().statusCode();
    }

    /** Waits until the load's log reaches {@code version}, then returns the operator's view. */
    static JsonPath awaitVersion(String loadId, int version) {
        await().atMost(Duration.ofSeconds(20)).until(() -> asOperator().get("/loads/{loadId}", loadId)
                .then().extract().statusCode() == 200
                && asOperator().get("/loads/{loadId}", loadId).then().extract().jsonPath().getInt("version") >= version);
        JsonPath view = asOperator().get("/loads/{loadId}", loadId).then().statusCode(200)
                .body("version", greaterThanOrEqualTo(version)).extract().jsonPath();
        return view;
    }

    /** The outbox ids of a load, in key order. */
    static List<String> outboxIds(Pool pool, String loadId) {
        List<String> ids = new ArrayList<>();
        for (Row row : Pg.await(pool.preparedQuery("SELECT outbox_id FROM outbox WHERE load_id = $1 ORDER BY outbox_id")
                .execute(Tuple.of(loadId)))) {
            ids.add(row.getString("outbox_id"));
        }
        return ids;
    }

    /** The payload of outbox row {@code outboxId}, as JSON text. */
    static String payload(Pool pool, String outboxId) {
        return Pg.await(pool.preparedQuery("SELECT payload::text AS payload FROM outbox WHERE outbox_id = $1")
                .execute(Tuple.of(outboxId))).iterator().next().getString("payload");
    }

    static long count(Pool pool, String sql, String loadId) {
        return Pg.await(pool.preparedQuery(sql).execute(Tuple.of(loadId))).iterator().next().getLong(0);
    }
}
