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
    /** The numbers and Messaging Service each client's drivers are written from. */
    static final String CLIENT_A_SENDER = "+15557770001";
    static final String CLIENT_B_SENDER = "+15557770002";
    static final String CLIENT_B_SERVICE = "MG" + "0123456789abcdef".repeat(2);
    /** A number of the broker's that no client names. */
    static final String SHARED_NUMBER = "+15557770000";

    public static class TwilioSource implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("loadflow.sources.twilio.auth-token", TOKEN, "loadflow.sources.twilio.webhook-url", URL,
                    "loadflow.sources.twilio.senders.client-a", CLIENT_A_SENDER,
                    "loadflow.sources.twilio.senders.client-b", CLIENT_B_SENDER + "," + CLIENT_B_SERVICE,
                    "loadflow.sources.twilio.strangers.per-number-per-day", "3");
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
        return incoming(sid, from, SHARED_NUMBER, body);
    }

    /** The form of an SMS {@code from} wrote to {@code to}. */
    private static Map<String, String> incoming(String sid, String from, String to, String body) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("ToCountry", "US");
        form.put("SmsMessageSid", sid);
        form.put("NumMedia", "0");
        form.put("SmsSid", sid);
        form.put("SmsStatus", "received");
        form.put("Body", body);
        form.put("To", to);
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
        assign(load, phone, "client-a", "assign_1", 2);
    }

    private static void assign(String load, String phone, String client, String eventId, int version) {
        asSource().contentType("application/json").body("""
                {"eventId": "%s", "type": "LoadAssigned", "occurredAt": "2026-11-30T06:55:00Z",
                 "payload": {"clientId": "%s", "driverPhone": "%s", "stage": "dispatched"}}""".formatted(eventId, client, phone))
                .post("/loads/{loadId}/events", load).then().statusCode(202);
        awaitVersion(load, version);
    }

    /** The load the SMS {@code sid} was logged on, once it is. */
    private static String loggedOn(String sid) {
        dev.loadflow.testing.Waits.await().atMost(java.time.Duration.ofSeconds(20)).until(() ->
                !db().rows("SELECT load_id FROM event_log WHERE entry_id = ?", sid).isEmpty());
        return (String) db().rows("SELECT load_id FROM event_log WHERE entry_id = ?", sid).getFirst().get("load_id");
    }

    private static java.util.List<Object> heroTasks(String load) {
        return db().rows("SELECT outbox_id FROM outbox WHERE load_id = ? AND action_type = 'create_hero_task'", load).stream()
                .map(row -> row.get("outbox_id")).toList();
    }

    private static void sms(String sid, String from, String to, String text) {
        Map<String, String> form = incoming(sid, from, to, text);
        assertThat(webhook(form, signed(URL, form, TOKEN)).statusCode()).isEqualTo(200);
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

    /**
     * A number no load has: its day's SMS are kept on one load named by a digest (never the
     * number), with one Hero task marked unverified; past its day's limit an SMS is answered and
     * not kept.
     */
    @Test
    void aStrangersSmsAreKeptUnderAnOpaqueIdWithOneHeroTaskADay() {
        String phone = randomPhone();
        String first = messageSid();
        sms(first, phone, SHARED_NUMBER, "who is this? I got a call about a pickup");
        String load = loggedOn(first);
        for (int i = 0; i < 2; i++) {
            sms(messageSid(), phone, SHARED_NUMBER, "hello? " + "x".repeat(1_500));
        }
        String pastLimit = messageSid();
        sms(pastLimit, phone, SHARED_NUMBER, "answer me");

        assertThat(load).startsWith("stranger-").doesNotContain(phone.substring(2)).matches("stranger-[0-9a-f]{20}-\\d{8}");
        JsonPath view = awaitVersion(load, 6);
        assertThat(view.getList("log.type")).containsExactly("InboundSms", "DecisionRecorded", "InboundSms", "DecisionRecorded",
                "InboundSms", "DecisionRecorded");
        assertThat(heroTasks(load)).as("one task for the number's day").hasSize(1);
        assertThat(db().rows("SELECT payload->>'title' AS title, payload->>'body' AS body FROM outbox WHERE load_id = ?", load))
                .singleElement().satisfies(task -> {
                    assertThat((String) task.get("title")).contains("Unverified");
                    assertThat(((String) task.get("body")).length()).isLessThan(700);
                });
        assertThat(db().rows("SELECT 1 FROM event_log WHERE entry_id = ?", pastLimit)).as("past the day's limit").isEmpty();
    }

    /**
     * A driver hauling for two clients: a reply goes to the load of the client whose sender it was
     * written to (by number or Messaging Service), not to the newest; written to a number no client
     * names, with neither load asking, it is not guessed: the Hero desk gets it.
     */
    @Test
    void aReplyGoesToTheLoadOfTheClientItWasWrittenToAndAnAmbiguousOneToTheHeroDesk() {
        String phone = randomPhone();
        String clientA = newLoadId();
        String clientB = newLoadId();
        assign(clientA, phone, "client-a", "assign_a", 2);
        assign(clientB, phone, "client-b", "assign_b", 2);

        String toA = messageSid();
        String toService = messageSid();
        String toShared = messageSid();
        sms(toA, phone, CLIENT_A_SENDER, "for the client-a load: 20 min out");
        Map<String, String> viaService = incoming(toService, phone, "+15557779999", "client-b load: unloading");
        viaService.put("MessagingServiceSid", CLIENT_B_SERVICE);
        assertThat(webhook(viaService, signed(URL, viaService, TOKEN)).statusCode()).isEqualTo(200);
        sms(toShared, phone, SHARED_NUMBER, "running late");

        assertThat(loggedOn(toA)).isEqualTo(clientA);
        assertThat(loggedOn(toService)).isEqualTo(clientB);
        String unrouted = loggedOn(toShared);
        assertThat(unrouted).startsWith("unrouted-").doesNotContain(phone.substring(2));
        assertThat(awaitVersion(unrouted, 2).getString("log[0].body.payload.text")).isEqualTo("running late");
        assertThat(heroTasks(unrouted)).hasSize(1);
    }

    /** Of a driver's loads of one client, the one with an open ask takes the reply, however old. */
    @Test
    void aReplyGoesToTheLoadThatAsked() {
        String phone = randomPhone();
        String asking = newLoadId();
        String newer = newLoadId();
        assign(asking, phone, "client-a", "assign_1", 2);
        asSource().contentType("application/json").body("""
                {"eventId": "ping_0700", "type": "LocationPing", "occurredAt": "2026-11-30T07:00:00Z",
                 "payload": {"risk": "high", "lat": 41.9, "lon": -87.6}}""").post("/loads/{loadId}/events", asking)
                .then().statusCode(202);
        awaitVersion(asking, 4);
        assign(newer, phone, "client-a", "assign_1", 2);

        String sid = messageSid();
        sms(sid, phone, SHARED_NUMBER, "ETA 10:15");

        assertThat(loggedOn(sid)).isEqualTo(asking);
    }

    /**
     * A message stays on the load it was first routed to: Twilio's retry, or a captured webhook
     * replayed after the driver moved to another load, is never ingested on the new load.
     */
    @Test
    void aMessageIsIngestedOnTheLoadItWasFirstRoutedToOnly() {
        String phone = randomPhone();
        String before = newLoadId();
        String after = newLoadId();
        assign(before, phone, "client-a", "assign_1", 2);
        String sid = messageSid();
        Map<String, String> form = incoming(sid, phone, CLIENT_A_SENDER, "at the dock");
        String signature = signed(URL, form, TOKEN);
        assertThat(webhook(form, signature).statusCode()).isEqualTo(200);
        assertThat(loggedOn(sid)).isEqualTo(before);

        assign(before, randomPhone(), "client-a", "assign_2", 4);
        assign(after, phone, "client-a", "assign_1", 2);
        assertThat(webhook(form, signature).statusCode()).as("the same webhook, replayed").isEqualTo(200);

        assertThat(db().rows("SELECT load_id FROM load_queue WHERE message_id = ?", sid)).isEmpty();
        assertThat(db().rows("SELECT load_id FROM event_log WHERE entry_id = ?", sid)).extracting(row -> row.get("load_id"))
                .containsExactly(before);
        assertThat(awaitVersion(after, 2).getList("log.entryId")).doesNotContain(sid);
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
