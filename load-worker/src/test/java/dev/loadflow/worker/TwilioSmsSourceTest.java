package dev.loadflow.worker;

import com.twilio.security.RequestValidator;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.testing.TestDatabase;
import dev.loadflow.worker.twilio.TwilioSignature;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.asSource;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A driver's SMS straight from Twilio's incoming-message webhook, signed as Twilio signs it
 * (each signature checked with Twilio's own {@link RequestValidator} before it is sent): it
 * reaches the load its sender drives now, once however often Twilio retries it; anything not
 * signed by Twilio for the configured URL is refused and writes nothing; a number no load has is
 * kept, and the Hero desk asked.
 */
@QuarkusTest
@TestProfile(TwilioSmsSourceTest.TwilioSource.class)
@WithTestResource(PostgresTestResource.class)
class TwilioSmsSourceTest {

    static final String TOKEN = "auth-token-of-the-test-account";
    static final String URL = "https://loadflow.example.com/sources/twilio/sms";
    private static final RequestValidator TWILIO = new RequestValidator(TOKEN);

    public static class TwilioSource implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("loadflow.sources.twilio.auth-token", TOKEN, "loadflow.sources.twilio.webhook-url", URL);
        }
    }

    private static TestDatabase db() {
        return PostgresTestResource.current();
    }

    private static String randomPhone() {
        return "+1555" + ThreadLocalRandom.current().nextInt(1_000_000, 9_999_999);
    }

    private static String messageSid() {
        byte[] bytes = new byte[16];
        ThreadLocalRandom.current().nextBytes(bytes);
        return "SM" + HexFormat.of().formatHex(bytes);
    }

    /** The form of an incoming SMS, as Twilio posts it (the fields loadflow reads, and some it does not). */
    private static Map<String, String> incoming(String sid, String from, String body) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("ToCountry", "US");
        form.put("SmsMessageSid", sid);
        form.put("NumMedia", "0");
        form.put("SmsSid", sid);
        form.put("SmsStatus", "received");
        form.put("Body", body);
        form.put("To", "+15557770000");
        form.put("NumSegments", "1");
        form.put("MessageSid", sid);
        form.put("AccountSid", "AC" + "0123456789abcdef".repeat(2));
        form.put("From", from);
        form.put("ApiVersion", "2010-04-01");
        return form;
    }

    /** Twilio's signature of {@code form} posted to {@code url}, as Twilio's own validator accepts it. */
    private static String signed(String url, Map<String, String> form, String token) {
        String signature = TwilioSignature.of(url, form, token);
        assertThat(new RequestValidator(token).validate(url, form, signature)).as("Twilio's validator accepts it").isTrue();
        return signature;
    }

    private static ExtractableResponse<Response> webhook(Map<String, String> form, String signature) {
        var request = given().contentType("application/x-www-form-urlencoded").formParams(form);
        return (signature == null ? request : request.header("X-Twilio-Signature", signature))
                .post("/sources/twilio/sms").then().extract();
    }

    private static void assign(String load, String phone) {
        asSource().contentType("application/json").body("""
                {"eventId": "assign_1", "type": "LoadAssigned", "occurredAt": "2026-11-30T06:55:00Z",
                 "payload": {"clientId": "client-a", "driverPhone": "%s", "stage": "dispatched"}}""".formatted(phone))
                .post("/loads/{loadId}/events", load).then().statusCode(202);
        awaitVersion(load, 2);
    }

    @Test
    void anSmsReachesTheLoadItsSenderDrivesNowOnceHoweverOftenTwilioSendsIt() {
        String phone = randomPhone();
        String earlier = newLoadId();
        String current = newLoadId();
        assign(earlier, phone);
        assign(current, phone);
        String sid = messageSid();
        Map<String, String> form = incoming(sid, phone, "ETA 9:30, traffic on I-90");

        var first = webhook(form, signed(URL, form, TOKEN));
        var retried = webhook(form, signed(URL, form, TOKEN));

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.contentType()).startsWith("text/xml");
        assertThat(first.body().asString()).contains("<Response></Response>");
        assertThat(retried.statusCode()).isEqualTo(200);
        JsonPath view = awaitVersion(current, 4);
        assertThat(view.getString("log[2].entryId")).isEqualTo(sid);
        assertThat(view.getString("log[2].type")).isEqualTo("InboundSms");
        assertThat(view.getString("log[2].body.payload.text")).isEqualTo("ETA 9:30, traffic on I-90");
        assertThat(db().rows("SELECT count(*) AS n FROM event_log WHERE entry_id = ?", sid).getFirst().get("n"))
                .as("Twilio's retry is the same event").isEqualTo(1L);
        assertThat(awaitVersion(earlier, 2).getInt("version")).as("the earlier load is not its sender's now").isEqualTo(2);
    }

    @Test
    void aWebhookNotSignedByTwilioForThisUrlIsRefusedAndWritesNothing() {
        String sid = messageSid();
        Map<String, String> form = incoming(sid, randomPhone(), "ETA 9:30");
        Map<String, String> tampered = new LinkedHashMap<>(form);
        tampered.put("Body", "cancel the load");

        var unsigned = webhook(form, null);
        var otherToken = webhook(form, signed(URL, form, "another-accounts-token"));
        var otherUrl = webhook(form, signed("https://elsewhere.example.com/sms", form, TOKEN));
        var changed = webhook(tampered, signed(URL, form, TOKEN));

        for (var refused : java.util.List.of(unsigned, otherToken, otherUrl, changed)) {
            assertThat(refused.statusCode()).isEqualTo(403);
            assertThat(refused.contentType()).startsWith("application/problem+json");
        }
        assertThat(db().rows("SELECT count(*) AS n FROM load_queue WHERE message_id = ?", sid).getFirst().get("n")).isEqualTo(0L);
        assertThat(db().rows("SELECT count(*) AS n FROM event_log WHERE entry_id = ?", sid).getFirst().get("n")).isEqualTo(0L);
    }

    @Test
    void anSmsFromANumberNoLoadHasIsKeptAndTheHeroDeskAsked() {
        String phone = randomPhone();
        String sid = messageSid();
        Map<String, String> form = incoming(sid, phone, "who is this? I got a call about a pickup");

        assertThat(webhook(form, signed(URL, form, TOKEN)).statusCode()).isEqualTo(200);

        String load = "sms-from-" + phone.substring(1);
        JsonPath view = awaitVersion(load, 2);
        assertThat(view.getString("log[0].entryId")).isEqualTo(sid);
        assertThat(db().rows("SELECT action_type FROM outbox WHERE load_id = ?", load))
                .extracting(row -> row.get("action_type")).contains("create_hero_task");
    }

    /** A status callback as Twilio posts it for a message the dispatcher sent. */
    private static Map<String, String> statusOf(String sid, String status) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("SmsSid", sid);
        form.put("SmsStatus", status);
        form.put("MessageStatus", status);
        form.put("To", "+15550100");
        form.put("MessageSid", sid);
        form.put("AccountSid", "AC" + "0123456789abcdef".repeat(2));
        form.put("From", "+15557770000");
        form.put("ApiVersion", "2010-04-01");
        return form;
    }

    private static final String STATUS_URL = "https://loadflow.example.com/sources/twilio/status";

    private static ExtractableResponse<Response> statusCallback(String outboxId, Map<String, String> form, String signature) {
        var request = given().contentType("application/x-www-form-urlencoded").formParams(form);
        if (outboxId != null) {
            request = request.queryParam("outboxId", outboxId);
        }
        return (signature == null ? request : request.header("X-Twilio-Signature", signature))
                .post("/sources/twilio/status").then().extract();
    }

    private static String statusUrl(String outboxId) {
        return STATUS_URL + "?outboxId=" + java.net.URLEncoder.encode(outboxId, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static java.util.List<Map<String, Object>> recorded(String sid) {
        return db().rows("SELECT outbox_id, status FROM provider_message WHERE provider = 'twilio' AND message_id = ?", sid);
    }

    /**
     * Twilio's status callbacks name the row their message was sent for: the message becomes that
     * row's, its status follows, and no other row can take it afterwards.
     */
    @Test
    void aStatusCallbackRecordsTheMessageAsTheRowItNamesAndNoOtherRowTakesIt() {
        String row = newLoadId() + "/ask:eta_request:ping_0700/1/send_sms";
        String other = row.replace("/1/", "/2/");
        String sid = messageSid();

        Map<String, String> sent = statusOf(sid, "sent");
        assertThat(statusCallback(row, sent, signed(statusUrl(row), sent, TOKEN)).statusCode()).isEqualTo(204);
        Map<String, String> delivered = statusOf(sid, "delivered");
        assertThat(statusCallback(row, delivered, signed(statusUrl(row), delivered, TOKEN)).statusCode()).isEqualTo(204);
        ExtractableResponse<Response> taken = statusCallback(other, delivered, signed(statusUrl(other), delivered, TOKEN));

        assertThat(taken.statusCode()).isEqualTo(409);
        assertThat(taken.contentType()).startsWith("application/problem+json");
        assertThat(recorded(sid)).singleElement().satisfies(message -> {
            assertThat(message.get("outbox_id")).isEqualTo(row);
            assertThat(message.get("status")).isEqualTo("delivered");
        });
    }

    /** A callback not signed by Twilio for the URL it was posted to, or whose row was swapped after signing, records nothing. */
    @Test
    void aStatusCallbackNotSignedForItsOwnUrlRecordsNothing() {
        String row = newLoadId() + "/ask:eta_request:ping_0700/1/send_sms";
        String swapped = newLoadId() + "/ask:eta_request:ping_0700/1/send_sms";
        String sid = messageSid();
        Map<String, String> form = statusOf(sid, "sent");

        assertThat(statusCallback(row, form, null).statusCode()).isEqualTo(403);
        assertThat(statusCallback(row, form, signed(statusUrl(row), form, "another-account-token")).statusCode()).isEqualTo(403);
        assertThat(statusCallback(swapped, form, signed(statusUrl(row), form, TOKEN)).statusCode()).isEqualTo(403);
        ExtractableResponse<Response> nameless = statusCallback(null, form, signed(STATUS_URL, form, TOKEN));

        assertThat(nameless.statusCode()).isEqualTo(400);
        assertThat(JsonPath.from(nameless.asString()).getString("field")).isEqualTo("outboxId");
        assertThat(recorded(sid)).isEmpty();
    }
}
