package dev.loadflow.worker;

import dev.loadflow.service.security.Roles;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.testing.TestCallers;
import dev.loadflow.testing.TestDatabase;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;
import io.smallrye.jwt.algorithm.SignatureAlgorithm;
import io.smallrye.jwt.build.Jwt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.function.Supplier;

import static dev.loadflow.service.testing.Management.management;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.ping;
import static dev.loadflow.worker.LoadApi.post;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.is;

/**
 * Who may call the load worker: sources ingest, viewers read (phones masked), operators change
 * and read unmasked, the break-glass token does both. Every refusal is problem+json; nothing a
 * refused request carried is queued or logged.
 */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class CallersTest {

    private static final String BREAK_GLASS = "worker-test-token";

    private static TestDatabase db() {
        return PostgresTestResource.current();
    }

    private static long rows(String table, String load) {
        return (Long) db().rows("SELECT count(*) AS n FROM " + table + " WHERE load_id = ?", load).get(0).get("n");
    }

    /** The callers of the matrix, by name. */
    private static final Map<String, Supplier<RequestSpecification>> CALLERS = Map.of(
            "nobody", () -> given(),
            "source", () -> given().auth().oauth2(TestCallers.INGEST_TOKEN),
            "viewer", () -> given().auth().oauth2(TestCallers.viewer()),
            "operator", () -> given().auth().oauth2(TestCallers.operator()),
            "break-glass", () -> given().auth().oauth2(BREAK_GLASS));

    private static ValidatableResponse call(String caller, String method, String path) {
        RequestSpecification request = CALLERS.get(caller).get().urlEncodingEnabled(false);
        return switch (method) {
            case "GET" -> request.get(path).then();
            case "POST" -> request.contentType("application/json").body(ping("ping_0700", "low")).post(path).then();
            default -> throw new IllegalArgumentException(method);
        };
    }

    @ParameterizedTest(name = "{0} {1} {2} → {3}")
    @CsvSource(delimiter = '|', textBlock = """
            nobody      | POST | /loads/matrix-1/events           | 401
            viewer      | POST | /loads/matrix-1/events           | 403
            operator    | POST | /loads/matrix-1/events           | 403
            break-glass | POST | /loads/matrix-1/events           | 403
            source      | POST | /loads/matrix-1/events           | 202
            nobody      | GET  | /loads/matrix-1                  | 401
            source      | GET  | /loads/matrix-1                  | 403
            nobody      | GET  | /admin/queue/dead                | 401
            source      | GET  | /admin/queue/dead                | 403
            viewer      | GET  | /admin/queue/dead                | 200
            operator    | GET  | /admin/queue/dead                | 200
            break-glass | GET  | /admin/queue/dead                | 200
            nobody      | POST | /admin/queue/dead/redrive        | 401
            source      | POST | /admin/queue/dead/redrive        | 403
            viewer      | POST | /admin/queue/dead/redrive        | 403
            operator    | POST | /admin/queue/dead/redrive        | 400
            break-glass | POST | /admin/queue/dead/redrive        | 400
            viewer      | GET  | /admin/queue/dead?limit=abc      | 400
            viewer      | GET  | /admin/loads/held?limit=99999999999 | 400
            viewer      | GET  | /admin/loads/held?since=%00      | 400
            viewer      | GET  | /admin/no-such-endpoint          | 404
            """)
    void eachCallerGetsWhatItsRolesAllow(String caller, String method, String path, int status) {
        ValidatableResponse response = call(caller, method, path).statusCode(status);
        if (status >= 400) {
            // the operator's redrive is past authorization: 400 names the missing parameters
            response.contentType("application/problem+json").body("status", is(status));
        }
        if (status == 401) {
            response.header("WWW-Authenticate", "Bearer realm=\"loadflow\"");
        }
    }

    @Test
    void viewersAndOperatorsReadALoadAndOnlyOperatorsSeeThePhoneNumbers() {
        String load = newLoadId();
        post(load, assigned("assign_1"));
        post(load, ping("ping_0700", "high"));
        awaitVersion(load, 4);

        JsonPath seenByViewer = given().auth().oauth2(TestCallers.viewer()).get("/loads/{loadId}", load)
                .then().statusCode(200).extract().jsonPath();
        assertThat(seenByViewer.getString("state.driverPhone")).isEqualTo("+1***00");
        assertThat(seenByViewer.getString("log[0].body.payload.driverPhone")).isEqualTo("+1***00");
        assertThat(seenByViewer.getString("log[3].body.actions[0].to")).isEqualTo("+1***00");
        assertThat(seenByViewer.prettify()).doesNotContain("+15550100");

        JsonPath seenByOperator = given().auth().oauth2(TestCallers.operator()).get("/loads/{loadId}", load)
                .then().statusCode(200).extract().jsonPath();
        assertThat(seenByOperator.getString("state.driverPhone")).isEqualTo("+15550100");
        assertThat(seenByOperator.getString("log[0].body.source")).as("the source is kept with the event")
                .isEqualTo(TestCallers.SOURCE);
    }

    /** A source past its rate is told when to come back; what it posted past it is not written. */
    @Test
    void aSourcePastItsRateGets429WithRetryAfterAndNothingIsWritten() {
        String first = newLoadId();
        String second = newLoadId();
        given().auth().oauth2(TestCallers.PACED_TOKEN).contentType("application/json").body(ping("ping_0700", "low"))
                .post("/loads/{loadId}/events", first).then().statusCode(202);

        var refused = given().auth().oauth2(TestCallers.PACED_TOKEN).contentType("application/json")
                .body(ping("ping_0700", "low")).post("/loads/{loadId}/events", second).then()
                .statusCode(429).contentType("application/problem+json").extract();

        assertThat(Integer.parseInt(refused.header("Retry-After"))).isBetween(1, 100);
        assertThat(refused.jsonPath().getString("detail")).contains(TestCallers.PACED);
        assertThat(rows("load_queue", second)).isZero();
        assertThat(rows("event_log", second)).isZero();
        post(second, ping("ping_0700", "low"));
        assertThat(awaitVersion(second, 2).getList("log.entryId")).as("another source is not held back by it")
                .contains("ping_0700");
    }

    /** A source named without event types owns none: whatever it posts is refused, nothing written. */
    @Test
    void aSourceWithoutEventTypesMayPostNothing() {
        String load = newLoadId();

        given().auth().oauth2(TestCallers.SILENT_TOKEN).contentType("application/json").body(assigned("assign_1"))
                .post("/loads/{loadId}/events", load)
                .then().statusCode(403).contentType("application/problem+json").body("field", is("type"));

        assertThat(rows("load_queue", load)).isZero();
    }

    private static String assignment(String eventId, String client, String phone, String stage) {
        return """
                {"eventId": "%s", "type": "LoadAssigned", "occurredAt": "2026-11-30T06:55:00Z",
                 "payload": {"clientId": "%s", "driverPhone": "%s", "stage": "%s"}}""".formatted(eventId, client, phone, stage);
    }

    private static ValidatableResponse assign(String token, String load, String body) {
        return given().auth().oauth2(token).contentType("application/json").body(body)
                .post("/loads/{loadId}/events", load).then();
    }

    /** A source assigns loads only for the clients it owns; the telematics source (pings only) assigns none. */
    @Test
    void aSourceAssignsLoadsOnlyForTheClientsItOwns() {
        String load = newLoadId();

        assign(TestCallers.TMS_NORTH_TOKEN, load, assignment("assign_c", "client-c", "+15550100", "dispatched"))
                .statusCode(403).contentType("application/problem+json")
                .body("title", is("Client not owned"), "field", is("payload.clientId"));
        assign(TestCallers.PACED_TOKEN, load, assignment("assign_p", "client-a", "+15550100", "dispatched"))
                .statusCode(403).body("field", is("type"));
        assertThat(rows("load_queue", load)).isZero();

        assign(TestCallers.TMS_NORTH_TOKEN, load, assignment("assign_b", "client-b", "+15550100", "dispatched"))
                .statusCode(202);
        assertThat(awaitVersion(load, 2).getString("state.clientId")).isEqualTo("client-b");
    }

    /**
     * A load's assignment belongs to the source that made it: another source, even one that owns
     * the client, is refused with 403 and changes nothing; the owner re-assigns as before.
     */
    @Test
    void aLoadAssignedByOneSourceIsNotReassignedByAnother() {
        String load = newLoadId();
        assign(TestCallers.TMS_NORTH_TOKEN, load, assignment("assign_1", "client-a", "+15550100", "dispatched"))
                .statusCode(202);
        awaitVersion(load, 2);

        assign(TestCallers.TMS_SOUTH_TOKEN, load, assignment("assign_s", "client-a", "+15559999", "delivered"))
                .statusCode(403).contentType("application/problem+json")
                .body("title", is("Load assigned by another source"), "detail", org.hamcrest.Matchers.containsString("tms-north"));
        assertThat(rows("load_queue", load)).isZero();

        assign(TestCallers.TMS_NORTH_TOKEN, load, assignment("assign_2", "client-a", "+15550101", "in_transit"))
                .statusCode(202);
        JsonPath view = awaitVersion(load, 4);
        assertThat(view.getString("state.driverPhone")).isEqualTo("+15550101");
        assertThat(view.getString("state.stage")).isEqualTo("in_transit");
        assertThat(view.getString("state.assignedBy")).isEqualTo(TestCallers.TMS_NORTH);
        assertThat(view.getList("log.entryId")).doesNotContain("assign_s");
    }

    @Test
    void anUnknownIngestTokenIsRefusedAndNothingIsQueuedOrLogged() {
        String load = newLoadId();

        given().auth().oauth2("not-a-configured-token").contentType("application/json").body(assigned("assign_1"))
                .post("/loads/{loadId}/events", load)
                .then().statusCode(401).contentType("application/problem+json");

        assertThat(rows("load_queue", load)).isZero();
        assertThat(rows("event_log", load)).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            malformed        | 401
            wrong signature  | 401
            expired          | 401
            wrong issuer     | 401
            no groups        | 403
            unknown group    | 403
            64 KB header     | 401
            alg none         | 401
            HS256 public key | 401
            not yet valid    | 401
            signature cut    | 401
            no audience      | 401
            other audience   | 401
            no subject       | 401
            a year-long JWT  | 401
            """)
    void aBadJwtIsRefusedNeverAServerErrorAndChangesNothing(String kind, int status) {
        String load = newLoadId();
        String token = switch (kind) {
            case "malformed" -> "eyJhbGciOiJSUzI1NiJ9.not-json.not-a-signature";
            case "wrong signature" -> TestCallers.signWithAnotherKey(TestCallers.claims("mallory").groups(Roles.OPERATOR));
            case "expired" -> TestCallers.sign(TestCallers.claims("olga").groups(Roles.OPERATOR)
                    .issuedAt(Instant.parse("2026-11-29T06:00:00Z")).expiresAt(Instant.parse("2026-11-29T07:00:00Z")));
            case "wrong issuer" -> TestCallers.sign(TestCallers.claims("ivan").issuer("someone-else").groups(Roles.OPERATOR));
            case "no groups" -> TestCallers.sign(TestCallers.claims("nora"));
            case "unknown group" -> TestCallers.jwt("uma", "loadflow-admin");
            case "64 KB header" -> "x".repeat(64 * 1024);
            case "alg none" -> unsigned(TestCallers.operator());
            case "HS256 public key" -> TestCallers.claims("mallory").groups(Roles.OPERATOR).jws()
                    .algorithm(SignatureAlgorithm.HS256)
                    .sign(new SecretKeySpec(TestCallers.publicKeyPem().getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            case "not yet valid" -> TestCallers.sign(TestCallers.claims("nico").groups(Roles.OPERATOR)
                    .claim("nbf", Instant.parse("2100-01-01T00:00:00Z").getEpochSecond())
                    .expiresAt(Instant.parse("2100-01-01T01:00:00Z")));
            case "signature cut" -> TestCallers.operator().substring(0, TestCallers.operator().lastIndexOf('.') + 1);
            case "no audience" -> TestCallers.sign(Jwt.issuer(TestCallers.ISSUER).subject("ada").groups(Roles.OPERATOR)
                    .expiresIn(300));
            case "other audience" -> TestCallers.sign(TestCallers.claims("otis").audience("another-app").groups(Roles.OPERATOR));
            case "no subject" -> TestCallers.sign(Jwt.issuer(TestCallers.ISSUER).audience(TestCallers.AUDIENCE)
                    .upn("nobody@example.test").groups(Roles.OPERATOR).expiresIn(300));
            // valid until 2100, issued more than the 12 hours a JWT may be used before
            case "a year-long JWT" -> TestCallers.sign(TestCallers.claims("lena").groups(Roles.OPERATOR)
                    .issuedAt(Instant.parse("2026-11-01T00:00:00Z")).expiresAt(Instant.parse("2100-01-01T00:00:00Z")));
            default -> throw new IllegalArgumentException(kind);
        };

        given().auth().oauth2(token).queryParam("loadId", load).queryParam("messageId", "m-1")
                .post("/admin/queue/dead/redrive")
                .then().statusCode(status).contentType("application/problem+json");
        given().auth().oauth2(token).contentType("application/json").body(assigned("assign_1"))
                .post("/loads/{loadId}/events", load)
                .then().statusCode(status);

        assertThat(rows("load_queue", load)).isZero();
        assertThat(rows("event_log", load)).isZero();
    }

    /** A valid token's claims under a header that says {@code alg: none}, and no signature. */
    private static String unsigned(String token) {
        String payload = token.split("\\.")[1];
        String header = Base64.getUrlEncoder().withoutPadding()
                .encodeToString("{\"alg\":\"none\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
        return header + "." + payload + ".";
    }

    @Test
    void healthAndMetricsAreOnTheManagementPortOnly() {
        given().get("/q/metrics").then().statusCode(404);
        given().get("/q/health/ready").then().statusCode(404);
        management().get("/q/metrics").then().statusCode(200);
        management().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
    }
}
