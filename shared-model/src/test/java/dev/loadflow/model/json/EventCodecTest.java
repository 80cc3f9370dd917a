package dev.loadflow.model.json;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.OutcomeStatus;
import dev.loadflow.model.event.Provenance;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URI;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventCodecTest {

    private static final Instant RECEIVED = Instant.parse("2026-11-30T07:00:01Z");

    private static final String PING = """
            {"eventId": "ping_0700", "type": "LocationPing", "occurredAt": "2026-11-30T07:00:00Z",
             "correlationId": "c-1", "payload": {"risk": "high", "lat": 41.9, "lon": -87.6}}""";

    @Test
    void theDesignDocumentsPingParses() {
        InboundEvent event = EventCodec.parseIngest("481207", PING, RECEIVED);

        assertThat(event.eventId()).isEqualTo("ping_0700");
        assertThat(event.loadId()).isEqualTo("481207");
        assertThat(event.occurredAt()).isEqualTo(Instant.parse("2026-11-30T07:00:00Z"));
        assertThat(event.receivedAt()).isEqualTo(RECEIVED);
        assertThat(event.correlationId()).isEqualTo("c-1");
        assertThat(event.payload()).isEqualTo(new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6));
    }

    @Test
    void loadAssignedAndInboundSmsParse() {
        InboundEvent assigned = EventCodec.parseIngest("481207", """
                {"eventId": "assign_1", "type": "LoadAssigned", "occurredAt": "2026-11-30T06:00:00-06:00",
                 "payload": {"clientId": "client-a", "driverPhone": "+15550100", "stage": "dispatched"}}""", RECEIVED);
        InboundEvent sms = EventCodec.parseIngest("481207", """
                {"eventId": "sms_1", "type": "InboundSms", "occurredAt": "2026-11-30T07:05:00Z",
                 "payload": {"from": "+15550100", "text": "ETA 9:30"}}""", RECEIVED);

        assertThat(assigned.payload()).isEqualTo(new EventPayload.LoadAssigned("client-a", "+15550100", "dispatched"));
        assertThat(assigned.occurredAt()).isEqualTo(Instant.parse("2026-11-30T12:00:00Z"));
        assertThat(assigned.correlationId()).as("defaults to the event id").isEqualTo("assign_1");
        assertThat(sms.payload()).isEqualTo(new EventPayload.InboundSms("+15550100", "ETA 9:30"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "malformed JSON        | {\"eventId\": |$",
            "not an object         | [1, 2]|$",
            "unknown type          | {\"eventId\":\"e1\",\"type\":\"Teleport\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{}}|type",
            "internal type         | {\"eventId\":\"e1\",\"type\":\"TimerFired\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{}}|type",
            "missing eventId       | {\"type\":\"LocationPing\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"risk\":\"high\",\"lat\":1,\"lon\":1}}|eventId",
            "bad eventId           | {\"eventId\":\"a/b\",\"type\":\"LocationPing\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"risk\":\"high\",\"lat\":1,\"lon\":1}}|eventId",
            "bad timestamp         | {\"eventId\":\"e1\",\"type\":\"LocationPing\",\"occurredAt\":\"yesterday\",\"payload\":{\"risk\":\"high\",\"lat\":1,\"lon\":1}}|occurredAt",
            "timestamp no offset   | {\"eventId\":\"e1\",\"type\":\"LocationPing\",\"occurredAt\":\"2026-11-30T07:00:00\",\"payload\":{\"risk\":\"high\",\"lat\":1,\"lon\":1}}|occurredAt",
            "missing payload       | {\"eventId\":\"e1\",\"type\":\"LocationPing\",\"occurredAt\":\"2026-11-30T07:00:00Z\"}|payload",
            "missing payload field | {\"eventId\":\"e1\",\"type\":\"LocationPing\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"risk\":\"high\",\"lat\":1}}|payload.lon",
            "bad risk              | {\"eventId\":\"e1\",\"type\":\"LocationPing\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"risk\":\"extreme\",\"lat\":1,\"lon\":1}}|payload.risk",
            "lat out of range      | {\"eventId\":\"e1\",\"type\":\"LocationPing\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"risk\":\"high\",\"lat\":91,\"lon\":1}}|payload.lat",
            "lat as text           | {\"eventId\":\"e1\",\"type\":\"LocationPing\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"risk\":\"high\",\"lat\":\"41.9\",\"lon\":1}}|payload.lat",
            "unknown field         | {\"eventId\":\"e1\",\"type\":\"LocationPing\",\"ocurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{}}|ocurredAt",
            "bad phone             | {\"eventId\":\"e1\",\"type\":\"InboundSms\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"from\":\"555-0100\",\"text\":\"hi\"}}|payload.from",
            "other load in body    | {\"eventId\":\"e1\",\"loadId\":\"999\",\"type\":\"InboundSms\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"from\":\"+15550100\",\"text\":\"hi\"}}|loadId",
            "NUL in the SMS text   | {\"eventId\":\"e1\",\"type\":\"InboundSms\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"from\":\"+15550100\",\"text\":\"a\\u0000b\"}}|payload.text",
            "NUL in correlationId  | {\"eventId\":\"e1\",\"type\":\"InboundSms\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"correlationId\":\"c\\u0000\",\"payload\":{\"from\":\"+15550100\",\"text\":\"hi\"}}|correlationId",
            "escape in a stage     | {\"eventId\":\"e1\",\"type\":\"LoadAssigned\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"clientId\":\"client-a\",\"driverPhone\":\"+15550100\",\"stage\":\"\\u001b[31m\"}}|payload.stage",
            "lone surrogate        | {\"eventId\":\"e1\",\"type\":\"InboundSms\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"from\":\"+15550100\",\"text\":\"\\ud800x\"}}|payload.text",
            "NUL in a field name   | {\"eventId\":\"e1\",\"type\":\"InboundSms\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"payload\":{\"fr\\u0000om\":\"+15550100\",\"text\":\"hi\"}}|payload.fr\uFFFDom",
    })
    void badEnvelopesAreRefusedNamingTheField(String problem, String json, String field) {
        assertThatThrownBy(() -> EventCodec.parseIngest("481207", json, RECEIVED))
                .isInstanceOf(InvalidJsonException.class)
                .satisfies(e -> assertThat(((InvalidJsonException) e).field()).as(problem).isEqualTo(field))
                .hasMessageStartingWith(field + ":");
    }

    @ParameterizedTest(name = "{0} of {1} characters")
    @CsvSource({"payload.text, 1600", "correlationId, 128", "causationId, 128", "payload.stage, 64"})
    void textIsBoundedAndOneCharacterMoreIsRefused(String field, int max) {
        assertThat(EventCodec.parseIngest("481207", withField(field, "x".repeat(max)), RECEIVED).eventId()).isEqualTo("e1");
        assertThatThrownBy(() -> EventCodec.parseIngest("481207", withField(field, "x".repeat(max + 1)), RECEIVED))
                .isInstanceOf(InvalidJsonException.class)
                .hasMessage(field + ": at most " + max + " characters, got " + (max + 1));
    }

    @Test
    void tabsLineBreaksAndCharactersBeyondTheBasicPlaneAreText() {
        InboundEvent sms = EventCodec.parseIngest("481207", withField("payload.text", "ETA\\t9:30\\r\\nok \\ud83d\\ude9a"), RECEIVED);

        assertThat(((EventPayload.InboundSms) sms.payload()).text()).isEqualTo("ETA\t9:30\r\nok \uD83D\uDE9A");
    }

    /** An InboundSms (or for {@code payload.stage} a LoadAssigned) whose {@code field} is {@code value}. */
    private static String withField(String field, String value) {
        String correlation = field.equals("correlationId") ? value : "c-1";
        String causation = field.equals("causationId") ? ",\"causationId\":\"" + value + "\"" : "";
        String payload = field.equals("payload.stage")
                ? "\"type\":\"LoadAssigned\",\"payload\":{\"clientId\":\"client-a\",\"driverPhone\":\"+15550100\",\"stage\":\"" + value + "\"}"
                : "\"type\":\"InboundSms\",\"payload\":{\"from\":\"+15550100\",\"text\":\""
                        + (field.equals("payload.text") ? value : "hi") + "\"}";
        return "{\"eventId\":\"e1\",\"occurredAt\":\"2026-11-30T07:00:00Z\",\"correlationId\":\"" + correlation + "\""
                + causation + "," + payload + "}";
    }

    @Test
    void aBadLoadIdInThePathIsRefused() {
        assertThatThrownBy(() -> EventCodec.parseIngest("48/12", PING, RECEIVED))
                .isInstanceOf(InvalidJsonException.class).hasMessageContaining("loadId");
    }

    @Test
    void everyEventTypeRoundTripsThroughItsStoredForm() {
        TimerId timer = TimerId.of("481207", AskId.of("eta_request", "ping_0700"), 1);
        List<InboundEvent> events = List.of(
                EventCodec.parseIngest("481207", PING, RECEIVED),
                InboundEvent.timerFired(timer, Instant.parse("2026-11-30T07:31:00Z"), Instant.parse("2026-11-30T07:31:00.2Z"), "c-1"),
                InboundEvent.actionOutcome("481207", new EventPayload.ActionOutcome("481207/ask:eta_request:ping_0700/1/send_sms",
                        "send_sms", OutcomeStatus.DELIVERED, "{\"id\":\"m1\"}", null, false), RECEIVED, "c-1"));

        for (InboundEvent event : events) {
            assertThat(EventCodec.decode(EventCodec.encodeToString(event))).isEqualTo(event);
        }
        assertThat(events.get(1).eventId()).isEqualTo("evt:tmr:481207:ask:eta_request:ping_0700:1");
        assertThat(events.get(2).eventId()).isEqualTo("out:481207/ask:eta_request:ping_0700/1/send_sms:delivered");
    }

    @Test
    void decisionsWithEveryActionRoundTrip() {
        InboundEvent ping = EventCodec.parseIngest("481207", PING, RECEIVED);
        AskId ask = AskId.of("eta_request", "ping_0700");
        TimerId timer = TimerId.of("481207", ask, 1);
        DecisionRecorded decision = DecisionRecorded.decided(ping, RECEIVED, List.of(
                new Action.SendSms(ask, 1, "+15550100", "ETA?"),
                new Action.SetTimer(timer, RECEIVED.plusSeconds(1800)),
                new Action.CancelTimer(timer),
                new Action.CreateHeroTask(ask.toString(), 3, "Driver silent", dev.loadflow.model.action.Urgency.URGENT, "call"),
                new Action.PostHeroSlack(ask.toString(), 1, "#heroes", "answered"),
                new Action.UpdateStage(ask.toString(), 1, "in_transit"),
                new Action.StageChanged("evt:assign_2", 1, "in_transit", RECEIVED,
                        List.of(URI.create("https://crm.client-b.test/stages")), "client-b")), true, "high risk", List.of(ask.toString()));

        assertThat(LogCodec.decode("decision", LogCodec.encode(decision))).isEqualTo(decision);
        assertThat(LogCodec.decode("event", LogCodec.encode(ping))).isEqualTo(ping);
    }

    @Test
    void whoDecidedIsKeptWithTheDecisionAndAnOlderEntryWithoutItStillReads() {
        InboundEvent ping = new InboundEvent("ping_0700", "481207", RECEIVED, RECEIVED, "c-1", null,
                new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6));
        DecisionRecorded byModel = DecisionRecorded.decided(ping, RECEIVED, List.of(), false, "low risk", List.of(),
                Provenance.llm("gpt-x", "0123456789ab", 420, 35, 812));
        DecisionRecorded fallback = DecisionRecorded.decided(ping, RECEIVED, List.of(), false, "low risk", List.of(),
                Provenance.fallback("gpt-x", "0123456789ab", 840, 70, 20_001, "the model did not answer in time"));
        DecisionRecorded bySop = DecisionRecorded.decided(ping, RECEIVED, List.of(), false, "low risk", List.of());

        for (DecisionRecorded decision : List.of(byModel, fallback, bySop)) {
            assertThat(LogCodec.decode("decision", LogCodec.encode(decision))).isEqualTo(decision);
        }
        assertThat(LogCodec.encode(fallback)).contains("\"decidedBy\":\"sop-fallback\"")
                .contains("\"note\":\"the model did not answer in time\"").contains("\"tokensIn\":840");
        String older = LogCodec.encode(bySop).replace(",\"decidedBy\":\"sop\"", "");
        assertThat(((DecisionRecorded) LogCodec.decode("decision", older)).provenance()).isNull();
        assertThatThrownBy(() -> new Provenance("llm", null, null, 0, 0, 0, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names the model");
    }

    /** A decision the next release logged, with a field this one does not know (top level and in its provenance): read across the release. */
    @Test
    void aDecisionFromTheNextReleaseIsReadWithWhatThisOneKnows() {
        InboundEvent ping = EventCodec.parseIngest("481207", PING, RECEIVED);
        DecisionRecorded decision = DecisionRecorded.decided(ping, RECEIVED, List.of(), false, "low risk", List.of(),
                Provenance.llm("gpt-x", "0123456789ab", 420, 35, 812));
        String next = LogCodec.encode(decision).replaceFirst("^\\{", "{\"confidence\":0.93,")
                .replace("\"decidedBy\":\"llm\"", "\"decidedBy\":\"llm\",\"region\":\"eu\"");

        assertThat(next).contains("\"confidence\":0.93").contains("\"region\":\"eu\"");
        assertThat(LogCodec.decode("decision", next)).isEqualTo(decision);
        assertThatThrownBy(() -> LogCodec.decode("decision", next.replace("\"eventId\"", "\"event\"")))
                .isInstanceOf(InvalidJsonException.class).hasMessageContaining("eventId");
    }

    @Test
    void aStageChangeWithoutItsWebhooksOrWithOneThatIsNotHttpIsRefused() {
        String base = "{\"type\":\"stage_changed\",\"subject\":\"evt:a\",\"attempt\":1,\"stage\":\"x\","
                + "\"at\":\"2026-11-30T07:00:00Z\"";

        assertThatThrownBy(() -> ActionCodec.decode(base + "}")).isInstanceOf(InvalidJsonException.class)
                .hasMessage("webhooks: missing");
        assertThatThrownBy(() -> ActionCodec.decode(base + ",\"webhooks\":[\"file:/etc/passwd\"]}"))
                .isInstanceOf(InvalidJsonException.class).hasMessageContaining("absolute http(s) URL");
        assertThatThrownBy(() -> ActionCodec.decode(base + ",\"webhooks\":[]}"))
                .isInstanceOf(InvalidJsonException.class).hasMessageContaining("at least one webhook");
    }

    /**
     * A message the next release wrote, with a field this one does not know, in the envelope and
     * in its payload (as {@code traceparent} once was new): read, not held as poison, during a
     * rolling upgrade; a field this release needs is still required. Ingest stays strict.
     */
    @org.junit.jupiter.api.Test
    void aStoredEnvelopeFromTheNextReleaseIsReadAndItsRequiredFieldsAreStillChecked() {
        String next = """
                {"eventId": "ping_0700", "loadId": "L-1", "type": "LocationPing", "occurredAt": "2026-11-30T07:00:00Z",
                 "receivedAt": "2026-11-30T07:00:01Z", "correlationId": "c-1", "tenant": "broker-eu",
                 "payload": {"risk": "high", "lat": 41.9, "lon": -87.6, "speedKph": 88}}""";

        InboundEvent read = EventCodec.decode(next);

        assertThat(read.eventId()).isEqualTo("ping_0700");
        assertThat(read.payload()).isEqualTo(new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6));
        assertThatThrownBy(() -> EventCodec.decode(next.replace("\"risk\": \"high\", ", "")))
                .isInstanceOf(InvalidJsonException.class).hasMessageContaining("risk");
        assertThatThrownBy(() -> EventCodec.parseIngest("L-1", """
                {"eventId": "ping_0700", "type": "LocationPing", "occurredAt": "2026-11-30T07:00:00Z", "tenant": "x",
                 "payload": {"risk": "high", "lat": 41.9, "lon": -87.6}}""", java.time.Instant.parse("2026-11-30T07:00:01Z")))
                .as("ingest refuses what it does not know").isInstanceOf(InvalidJsonException.class).hasMessageContaining("tenant");
    }
}
