package dev.loadflow.worker;

import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.testing.TestCallers;
import dev.loadflow.store.pg.Pg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.config.EncoderConfig;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
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
        assertThat(sop.getString("current.rules.attempts[0].wait")).isEqualTo("PT15M");
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

    @Test
    void aPreviewRendersTheTextsForALoadAndReplaysItsHistoryWritingNothing() {
        String client = "client-pre-" + UUID.randomUUID().toString().substring(0, 8);
        String load = newLoadId();
        post(load, assigned(client));
        post(load, ping("ping_0700", "high"));
        awaitVersion(load, 4);
        long rowsBefore = outboxRows(load);

        JsonPath preview = given().auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body("""
                        {"loadId": "%s", "rules": {"clientName": "Acme Foods", "askOn": ["medium"],
                         "attempts": [{"wait": "PT20M", "text": "{clientName} here: ETA for {loadId} ({stage})?"},
                                      {"wait": "PT5M", "text": "Última llamada: {loadId}", "urgent": true}],
                         "heroSlackChannel": "#acme"}}""".formatted(load))
                .when().post("/admin/sops/{clientId}/preview", client)
                .then().statusCode(200).extract().jsonPath();

        assertThat(preview.getList("texts.text")).containsExactly("Acme Foods here: ETA for " + load + " (dispatched)?",
                "Última llamada: " + load);
        assertThat(preview.getList("texts.encoding")).containsExactly("GSM-7", "UCS-2");
        assertThat(preview.getList("history.eventId")).containsExactly("assign_1", "ping_0700");
        assertThat(preview.getString("history[1].decided.reason")).isEqualTo("high-risk ping: ETA ask opened");
        assertThat(preview.getList("history[1].proposed.actions")).as("these rules open no ask on a high-risk ping").isEmpty();
        assertThat(preview.getBoolean("history[1].differs")).isTrue();
        assertThat(outboxRows(load)).as("a preview writes nothing").isEqualTo(rowsBefore);
        assertThat(given().auth().oauth2(TestCallers.viewer()).when().get("/admin/sops/{clientId}", client).then().statusCode(200)
                .extract().jsonPath().getInt("current.version")).isZero();

        given().auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body("""
                        {"loadId": "%s", "rules": %s}""".formatted(load, rules("ETA?", "PT30M")))
                .when().post("/admin/sops/{clientId}/preview", "another-client")
                .then().statusCode(400).body("detail", containsString("belongs to client " + client));
    }

    @Test
    void anExportComesBackThroughAnImportThatListsWhatWouldChangeBeforeWriting() {
        String client = "client-yml-" + UUID.randomUUID().toString().substring(0, 8);
        given().auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(newVersion(rules("ETA for {loadId}?", "PT30M"), "the first SOP"))
                .when().put("/admin/sops/{clientId}", client).then().statusCode(200);
        String exported = given().auth().oauth2(TestCallers.viewer()).when().get("/admin/sops/export")
                .then().statusCode(200).contentType(containsString("application/yaml")).extract().asString();
        assertThat(exported).contains(client + ":").contains("text: \"ETA for {loadId}?\"");

        String edited = exported.replace("ETA for {loadId}?", "Where are you with {loadId}?");
        JsonPath dryRun = yaml(TestCallers.operator()).body(edited)
                .queryParam("dryRun", true)
                .when().post("/admin/sops/import").then().statusCode(200).extract().jsonPath();
        assertThat(dryRun.getString("changes.find { it.clientId == '" + client + "' }.change")).isEqualTo("changed");
        assertThat(currentVersion(client)).as("a dry run writes nothing").isEqualTo(1);

        JsonPath imported = yaml(TestCallers.operator()).body(edited)
                .queryParam("reason", "texts kept in git")
                .when().post("/admin/sops/import").then().statusCode(200).extract().jsonPath();
        assertThat(imported.getInt("changes.find { it.clientId == '" + client + "' }.to")).isEqualTo(2);
        assertThat(currentVersion(client)).isEqualTo(2);
        assertThat(given().auth().oauth2(TestCallers.viewer()).when().get("/admin/sops/{clientId}", client).then()
                .extract().jsonPath().getString("current.rules.attempts[0].text")).isEqualTo("Where are you with {loadId}?");
        JsonPath again = yaml(TestCallers.operator()).body(edited)
                .queryParam("reason", "the same again")
                .when().post("/admin/sops/import").then().statusCode(200).extract().jsonPath();
        assertThat(again.getString("changes.find { it.clientId == '" + client + "' }.change")).isEqualTo("unchanged");
    }

    @Test
    void anImportWithOneBadSopWritesNoneAndNamesEachField() {
        String good = "client-imp-" + UUID.randomUUID().toString().substring(0, 8);
        String document = """
                sops:
                  %s:
                    rules:
                      attempts: [{wait: PT30M, text: "ETA?"}]
                      heroSlackChannel: "#hero"
                  bad-client:
                    rules:
                      smsHours: {from: "06:00", to: "21:00"}
                      attempts: [{wait: half an hour, text: "ETA {eta}?"}]
                      heroSlackChannel: "#hero"
                """.formatted(good);

        yaml(TestCallers.operator()).body(document)
                .queryParam("reason", "both at once")
                .when().post("/admin/sops/import")
                .then().statusCode(400).contentType(containsString("application/problem+json"))
                .body("detail", containsString("sops.bad-client.rules.timeZone"))
                .body("detail", containsString("sops.bad-client.rules.attempts[0].wait"))
                .body("detail", containsString("unknown placeholder {eta}"));
        assertThat(currentVersion(good)).as("nothing written").isZero();
        yaml(TestCallers.viewer()).body(document).queryParam("dryRun", true)
                .when().post("/admin/sops/import").then().statusCode(403);
    }

    /** A request with a YAML body, sent as the text it is. */
    private static RequestSpecification yaml(String token) {
        return given().config(RestAssured.config().encoderConfig(EncoderConfig.encoderConfig()
                .encodeContentTypeAs("application/yaml", ContentType.TEXT))).auth().oauth2(token).contentType("application/yaml");
    }

    private static int currentVersion(String client) {
        return given().auth().oauth2(TestCallers.viewer()).when().get("/admin/sops/{clientId}", client).then().statusCode(200)
                .extract().jsonPath().getInt("current.version");
    }

    private long outboxRows(String load) {
        return Pg.await(pool.preparedQuery("SELECT count(*) AS n FROM outbox WHERE load_id = $1").execute(Tuple.of(load)))
                .iterator().next().getLong("n");
    }
}
