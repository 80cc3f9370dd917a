package dev.loadflow.model.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.SopRef;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.LogArchived;
import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.event.MessageSkipped;
import dev.loadflow.model.event.Provenance;

import java.util.ArrayList;
import java.util.List;

/** JSON of log entries, as stored in {@code event_log.body}. */
public final class LogCodec {

    private LogCodec() {
    }

    public static String encode(LogEntry entry) {
        return switch (entry) {
            case InboundEvent event -> EventCodec.encodeToString(event);
            case DecisionRecorded decision -> encodeDecision(decision).toString();
            case MessageSkipped skipped -> encodeSkipped(skipped).toString();
            case LogArchived archived -> encodeArchived(archived).toString();
        };
    }

    /** Reads a stored entry back; {@code kind} is {@code event_log.kind}. */
    public static LogEntry decode(String kind, String body) {
        return switch (kind) {
            case LogEntry.KIND_EVENT -> EventCodec.decode(body);
            case LogEntry.KIND_DECISION -> decodeDecision(JsonReader.parse(body));
            case LogEntry.KIND_SKIPPED -> decodeSkipped(JsonReader.parse(body));
            case LogEntry.KIND_ARCHIVED -> decodeArchived(JsonReader.parse(body));
            default -> throw new InvalidJsonException("kind", "unknown log entry kind '" + kind + "'");
        };
    }

    private static ObjectNode encodeDecision(DecisionRecorded d) {
        // a JSON tree on purpose: the log's wire format, written field by field so that renaming a record's field never changes what is stored
        ObjectNode json = JsonReader.MAPPER.createObjectNode()
                .put("eventId", d.eventId())
                .put("loadId", d.loadId())
                .put("decidedAt", d.decidedAt().toString());
        EventCodec.putIfSet(json, "correlationId", d.correlationId());
        ArrayNode actions = json.putArray("actions");
        d.actions().forEach(a -> actions.add(ActionCodec.encode(a)));
        json.put("filtered", d.filtered()).put("needsHeroTask", d.needsHeroTask()).put("reason", d.reason());
        ArrayNode closed = json.putArray("closedAsks");
        d.closedAsks().forEach(closed::add);
        Provenance p = d.provenance();
        if (p != null) {
            json.put("decidedBy", p.decidedBy());
            if (p.askedModel()) {
                ObjectNode agent = json.putObject("agent").put("model", p.model()).put("promptHash", p.promptHash())
                        .put("tokensIn", p.tokensIn()).put("tokensOut", p.tokensOut()).put("latencyMs", p.latencyMillis());
                EventCodec.putIfSet(agent, "note", p.note());
            }
        }
        if (d.sop() != null) {
            ObjectNode sop = json.putObject("sop").put("version", d.sop().version());
            EventCodec.putIfSet(sop, "clientId", d.sop().clientId());
        }
        return json;
    }

    private static Provenance decodeProvenance(JsonReader r) {
        String decidedBy = r.optionalText("decidedBy");
        if (decidedBy == null) {
            return null;
        }
        JsonNode agent = r.node().path("agent");
        if (agent.isMissingNode()) {
            return decidedBy.equals(Provenance.SOP) ? Provenance.BY_SOP : new Provenance(decidedBy, null, null, 0, 0, 0, null);
        }
        return new Provenance(decidedBy, agent.path("model").asText(), agent.path("promptHash").asText(),
                agent.path("tokensIn").asLong(), agent.path("tokensOut").asLong(), agent.path("latencyMs").asLong(),
                agent.hasNonNull("note") ? agent.path("note").asText() : null);
    }

    private static DecisionRecorded decodeDecision(JsonReader r) {
        List<Action> actions = new ArrayList<>();
        for (JsonNode action : r.array("actions")) {
            actions.add(ActionCodec.decode(action));
        }
        List<String> closed = new ArrayList<>();
        for (JsonNode askId : r.array("closedAsks")) {
            closed.add(askId.asText());
        }
        return new DecisionRecorded(r.text("eventId"), r.text("loadId"), r.instant("decidedAt"),
                r.optionalText("correlationId"), actions, r.bool("filtered"), r.bool("needsHeroTask"),
                r.anyText("reason"), closed, decodeProvenance(r), decodeSop(r.node().path("sop")));
    }

    private static SopRef decodeSop(JsonNode sop) {
        return sop.isObject() ? new SopRef(sop.hasNonNull("clientId") ? sop.path("clientId").asText() : null,
                sop.path("version").asInt()) : null;
    }

    private static ObjectNode encodeSkipped(MessageSkipped s) {
        // a JSON tree on purpose: the log's wire format, written field by field so that renaming a record's field never changes what is stored
        return JsonReader.MAPPER.createObjectNode()
                .put("messageId", s.messageId())
                .put("loadId", s.loadId())
                .put("messageType", s.messageType())
                .put("skippedAt", s.skippedAt().toString())
                .put("principal", s.principal())
                .put("reason", s.reason());
    }

    private static MessageSkipped decodeSkipped(JsonReader r) {
        return new MessageSkipped(r.text("messageId"), r.text("loadId"), r.text("messageType"), r.instant("skippedAt"),
                r.text("principal"), r.text("reason"));
    }

    /** The body the retention job's SQL writes for a marker: the same fields, built in the database. */
    private static ObjectNode encodeArchived(LogArchived a) {
        // a JSON tree on purpose: the log's wire format, and the same fields the retention SQL builds
        return JsonReader.MAPPER.createObjectNode()
                .put("loadId", a.loadId())
                .put("throughSeq", a.throughSeq())
                .put("archivedAt", a.archivedAt().toString());
    }

    private static LogArchived decodeArchived(JsonReader r) {
        return new LogArchived(r.text("loadId"), r.node().path("throughSeq").asLong(), r.instant("archivedAt"));
    }
}
