package dev.loadflow.model.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.model.event.EventKind;
import dev.loadflow.model.event.EventKinds;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.EventType;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.OutcomeStatus;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.id.InboundIds;
import dev.loadflow.model.id.TimerId;

import java.time.Instant;
import java.util.Arrays;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * JSON of the event envelope. {@link #parseIngest} is the strict reader for events arriving
 * from outside: unknown or internal types, missing fields, bad timestamps, unknown fields and
 * ids outside their alphabet are refused with an {@link InvalidJsonException} naming the field.
 * {@link #encode} and {@link #decode} carry envelopes on the load queue and in the log.
 */
public final class EventCodec {

    private static final Set<String> INGEST_FIELDS =
            Set.of("eventId", "loadId", "type", "occurredAt", "correlationId", "causationId", "payload");
    private static final Pattern PHONE = Pattern.compile("\\+[1-9][0-9]{1,14}");

    /** The most characters of an id that names something outside loadflow (correlation, causation). */
    public static final int MAX_ID = 128;
    /** The most characters of a stage name. */
    public static final int MAX_STAGE = 64;
    /** The most characters of an SMS text: a provider's limit (ten concatenated segments). */
    public static final int MAX_SMS_TEXT = 1_600;
    private static final Pattern CLIENT_ID = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

    private EventCodec() {
    }

    /**
     * Reads an event POSTed to {@code /loads/{loadId}/events}. The envelope's own {@code loadId},
     * when given, must match the path's; {@code receivedAt} comes from loadflow's clock.
     */
    public static InboundEvent parseIngest(String loadId, String json, Instant receivedAt) {
        if (!InboundIds.isValidLoadId(loadId)) {
            throw new InvalidJsonException("loadId", "must be 1 to 64 characters of [A-Za-z0-9_-], got '" + loadId + "'");
        }
        JsonReader r = JsonReader.parse(json);
        // before any field is read: what PostgreSQL (jsonb, text) or a log line could not take as it is
        TextRules.requirePrintable(r.node(), "$");
        r.allowOnly(INGEST_FIELDS);
        String eventId = r.text("eventId");
        if (!InboundIds.isValidEventId(eventId)) {
            throw new InvalidJsonException("eventId", "must be 1 to 128 characters of [A-Za-z0-9_.-], got '" + eventId + "'");
        }
        String bodyLoadId = r.optionalText("loadId");
        if (bodyLoadId != null && !bodyLoadId.equals(loadId)) {
            throw new InvalidJsonException("loadId", "'" + bodyLoadId + "' does not match the load id of the path, '" + loadId + "'");
        }
        EventType type = type(r);
        if (!type.ingestible()) {
            throw new InvalidJsonException("type", type.wire() + " events come only from loadflow's own services, never through ingest");
        }
        Instant occurredAt = r.instant("occurredAt");
        String correlationId = r.has("correlationId") ? r.text("correlationId", MAX_ID) : eventId;
        String causationId = r.has("causationId") ? r.text("causationId", MAX_ID) : null;
        return new InboundEvent(eventId, loadId, occurredAt, receivedAt, correlationId, causationId,
                payload(type, r.object("payload"), true));
    }

    /**
     * Reads an envelope written by {@link #encode} (a queued message, a logged event): all
     * types. Tolerant across releases: a field it does not know (one a newer release added, as
     * {@code traceparent} once was) is passed over, so a message written by the next release
     * during a rolling upgrade is not taken for poison; every field it needs is still required
     * and checked.
     */
    public static InboundEvent decode(JsonNode node) {
        JsonReader r = JsonReader.of(node, "$");
        EventType type = type(r);
        return new InboundEvent(r.text("eventId"), r.text("loadId"), r.instant("occurredAt"), r.instant("receivedAt"),
                r.optionalText("correlationId"), r.optionalText("causationId"), payload(type, r.object("payload"), false),
                r.optionalText("source"), r.optionalText("traceparent"));
    }

    public static InboundEvent decode(String json) {
        return decode(JsonReader.parse(json).node());
    }

    public static ObjectNode encode(InboundEvent event) {
        // a JSON tree on purpose: the queue's and the log's wire format, field by field, that an added event kind writes into
        ObjectNode json = JsonReader.MAPPER.createObjectNode()
                .put("eventId", event.eventId())
                .put("loadId", event.loadId())
                .put("type", event.type().wire())
                .put("occurredAt", event.occurredAt().toString())
                .put("receivedAt", event.receivedAt().toString());
        putIfSet(json, "correlationId", event.correlationId());
        putIfSet(json, "causationId", event.causationId());
        putIfSet(json, "source", event.source());
        putIfSet(json, "traceparent", event.traceparent());
        json.set("payload", encode(event.payload()));
        return json;
    }

    public static String encodeToString(InboundEvent event) {
        return encode(event).toString();
    }

    private static EventType type(JsonReader r) {
        String wire = r.text("type");
        return EventType.fromWire(wire).orElseThrow(() -> new InvalidJsonException("type",
                "unknown event type '" + wire + "'; known: "
                        + Arrays.stream(EventType.values()).map(EventType::wire).collect(Collectors.joining(", "))));
    }

    /** @param strict whether a field the payload does not have is refused (ingest) or passed over (stored envelopes) */
    private static EventPayload payload(EventType type, JsonReader p, boolean strict) {
        EventKind<?> kind = EventKinds.of(type);
        if (kind != null) {
            allowOnly(p, kind.fields(), strict);
            return kind.read(p);
        }
        return switch (type.wire()) {
            case "LoadAssigned" -> {
                allowOnly(p, Set.of("clientId", "driverPhone", "stage"), strict);
                String clientId = p.text("clientId");
                if (!CLIENT_ID.matcher(clientId).matches()) {
                    throw new InvalidJsonException(p.field("clientId"), "must be 1 to 63 characters of [a-z0-9-], got '" + clientId + "'");
                }
                yield new EventPayload.LoadAssigned(clientId, phone(p, "driverPhone"), p.text("stage", MAX_STAGE));
            }
            case "LocationPing" -> {
                allowOnly(p, Set.of("risk", "lat", "lon"), strict);
                String risk = p.text("risk");
                yield new EventPayload.LocationPing(
                        Risk.fromWire(risk).orElseThrow(() -> new InvalidJsonException(p.field("risk"),
                                "must be one of high, medium, low; got '" + risk + "'")),
                        p.number("lat", -90, 90), p.number("lon", -180, 180));
            }
            case "InboundSms" -> {
                allowOnly(p, Set.of("from", "text"), strict);
                yield new EventPayload.InboundSms(phone(p, "from"), p.anyText("text", MAX_SMS_TEXT));
            }
            case "TimerFired" -> {
                allowOnly(p, Set.of("timerId", "askId", "attempt", "fireAt"), strict);
                String timerId = p.text("timerId");
                try {
                    TimerId.parse(timerId);
                } catch (IllegalArgumentException e) {
                    throw new InvalidJsonException(p.field("timerId"), e.getMessage());
                }
                yield new EventPayload.TimerFired(timerId, p.text("askId"), p.integer("attempt"), p.instant("fireAt"));
            }
            case "ActionOutcome" -> {
                allowOnly(p, Set.of("outboxId", "actionType", "status", "receipt", "failure", "heroChannel", "ambiguous",
                        "round"), strict);
                String status = p.text("status");
                yield new EventPayload.ActionOutcome(p.text("outboxId"), p.text("actionType"),
                        OutcomeStatus.fromWire(status).orElseThrow(() -> new InvalidJsonException(p.field("status"),
                                "must be delivered or failed; got '" + status + "'")),
                        p.has("receipt") ? p.anyText("receipt") : null,
                        p.has("failure") ? p.anyText("failure") : null,
                        p.has("heroChannel") && p.bool("heroChannel"),
                        p.has("ambiguous") && p.bool("ambiguous"),
                        p.has("round") ? p.integer("round") : 1);
            }
            default -> throw new InvalidJsonException("type", "no EventKind is registered for event type '" + type.wire() + "'");
        };
    }

    private static void allowOnly(JsonReader p, Set<String> fields, boolean strict) {
        if (strict) {
            p.allowOnly(fields);
        }
    }

    private static String phone(JsonReader p, String name) {
        String phone = p.text(name);
        if (!PHONE.matcher(phone).matches()) {
            throw new InvalidJsonException(p.field(name), "must be an E.164 phone number such as +15550100, got '" + phone + "'");
        }
        return phone;
    }

    private static ObjectNode encode(EventPayload payload) {
        // a JSON tree on purpose: each payload kind, built-in or added (EventKind.write), writes its own fields into it
        ObjectNode json = JsonReader.MAPPER.createObjectNode();
        switch (payload) {
            case EventPayload.LoadAssigned a -> json.put("clientId", a.clientId()).put("driverPhone", a.driverPhone())
                    .put("stage", a.stage());
            case EventPayload.LocationPing p -> json.put("risk", p.risk().wire()).put("lat", p.lat()).put("lon", p.lon());
            case EventPayload.InboundSms s -> json.put("from", s.from()).put("text", s.text());
            case EventPayload.TimerFired t -> json.put("timerId", t.timerId()).put("askId", t.askId())
                    .put("attempt", t.attempt()).put("fireAt", t.fireAt().toString());
            case EventPayload.ActionOutcome o -> {
                json.put("outboxId", o.outboxId()).put("actionType", o.actionType()).put("status", o.status().wire());
                putIfSet(json, "receipt", o.receipt());
                putIfSet(json, "failure", o.failure());
                json.put("heroChannel", o.heroChannel());
                if (o.ambiguous()) {
                    json.put("ambiguous", true);
                }
                if (o.round() > 1) {
                    json.put("round", o.round());
                }
            }
            case EventPayload.Extension extension -> write(EventKinds.of(extension.type()), extension, json);
        }
        return json;
    }

    private static <P extends EventPayload.Extension> void write(EventKind<P> kind, EventPayload.Extension payload,
                                                                  ObjectNode json) {
        if (kind == null) {
            throw new IllegalArgumentException("no EventKind is registered for event type '" + payload.type().wire() + "'");
        }
        kind.write(kind.javaType().cast(payload), json);
    }

    static void putIfSet(ObjectNode json, String name, String value) {
        if (value != null) {
            json.put(name, value);
        }
    }
}
