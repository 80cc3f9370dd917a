package dev.loadflow.worker;

import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.testing.TestCallers;
import dev.loadflow.store.pg.Pg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.ping;
import static dev.loadflow.worker.LoadApi.post;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/**
 * A client's SOP as data: an operator adds a version through the admin API, audited in the same
 * transaction; the next decision for the client's loads follows it; a bad SOP is refused naming
 * each wrong field; a viewer reads and cannot change.
 */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class SopsAdminTest {

    @Inject
    Pool pool;

    private static String rules(String text, String retryAfter) {
        return """
                {"retryAfter": "%s", "maxAttempts": 2, "etaRequestText": "%s", "heroSlackChannel": "#hero-desk"}"""
                .formatted(retryAfter, text);
    }

    private static String newVersion(String rules, String reason) {
        return """
                {"rules": %s, "reason": "%s"}""".formatted(rules, reason);
    }

    private static String assigned(String clientId) {
        return """
                {"eventId": "assign_1", "type": "LoadAssigned", "occurredAt": "2026-11-30T06:55:00Z",
                 "payload": {"clientId": "%s", "driverPhone": "+15550100", "stage": "dispatched"}}""".formatted(clientId);
    }

    @Test
    void aNewVersionIsAuditedAndDecidesTheClientsNextAsk() {
        String client = "client-sop-" + UUID.randomUUID().toString().substring(0, 8);
        given().auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(newVersion(rules("Load {loadId}, attempt {attempt}: ETA please?", "PT20M"), "clients asked for a shorter text"))
                .when().put("/admin/sops/{clientId}", client)
                .then().statusCode(200).body("version", equalTo(1));
        given().auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(newVersion(rules("Load {loadId} (try {attempt}): when do you arrive?", "PT15M"), "the team wants 15 minutes"))
                .when().put("/admin/sops/{clientId}", client)
                .then().statusCode(200).body("version", equalTo(2));

        JsonPath sop = given().auth().oauth2(TestCallers.viewer()).when().get("/admin/sops/{clientId}", client)
                .then().statusCode(200).extract().jsonPath();
        assertThat(sop.getInt("current.version")).isEqualTo(2);
        assertThat(sop.getString("current.rules.retryAfter")).isEqualTo("PT15M");
        assertThat(sop.getList("history.version", Integer.class)).containsExactly(2, 1);
        assertThat(sop.getList("history.reason")).containsExactly("the team wants 15 minutes", "clients asked for a shorter text");
        assertThat(given().auth().oauth2(TestCallers.viewer()).when().get("/admin/sops").then().statusCode(200).extract()
                .jsonPath().getList("clients.findAll { it.clientId == '" + client + "' }.version", Integer.class)).containsExactly(2);
        assertThat(Pg.await(pool.preparedQuery("SELECT count(*) AS n FROM admin_audit WHERE action = 'sop.put' AND target = $1")
                .execute(Tuple.of(client))).iterator().next().getLong("n")).as("each version audited").isEqualTo(2);

        String load = newLoadId();
        post(load, assigned(client));
        post(load, ping("ping_0700", "high"));
        awaitVersion(load, 4);
        String sms = Pg.await(pool.preparedQuery("SELECT payload ->> 'text' AS text FROM outbox WHERE load_id = $1 AND action_type = 'send_sms'")
                .execute(Tuple.of(load))).iterator().next().getString("text");
        assertThat(sms).as("the newest version's text").isEqualTo("Load " + load + " (try 1): when do you arrive?");
    }

    @Test
    void aBadSopIsRefusedNamingEachWrongFieldAndNothingIsWritten() {
        String client = "client-bad-" + UUID.randomUUID().toString().substring(0, 8);
        given().auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(newVersion("""
                        {"retryAfter": "half an hour", "maxAttempts": 0, "etaRequestText": "ETA for {load}?", "heroSlackChannel": "#hero-desk",
                         "colour": "blue"}""", "trying"))
                .when().put("/admin/sops/{clientId}", client)
                .then().statusCode(400).contentType(containsString("application/problem+json"))
                .body("detail", containsString("retryAfter")).body("detail", containsString("maxAttempts"))
                .body("detail", containsString("unknown placeholder {load}")).body("detail", containsString("colour"));
        given().auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(newVersion(rules("ETA?", "PT30M"), " "))
                .when().put("/admin/sops/{clientId}", client)
                .then().statusCode(400).body("field", equalTo("reason"));

        assertThat(given().auth().oauth2(TestCallers.viewer()).when().get("/admin/sops/{clientId}", client).then().statusCode(200)
                .extract().jsonPath().getInt("current.version")).as("still the configured rules").isZero();
    }

    @Test
    void aViewerReadsTheSopsAndCannotChangeThem() {
        given().auth().oauth2(TestCallers.viewer()).contentType("application/json")
                .body(newVersion(rules("ETA?", "PT30M"), "a viewer tries"))
                .when().put("/admin/sops/{clientId}", "client-a")
                .then().statusCode(403);
        given().when().get("/admin/sops").then().statusCode(401);
    }
}
