package dev.loadflow.model.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.ActionKind;
import dev.loadflow.model.action.ActionKinds;
import dev.loadflow.model.action.ActionType;
import dev.loadflow.model.action.Urgency;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON of actions, as they stand in a {@code DecisionRecorded} entry and in an outbox row's
 * {@code payload}. Each document carries its {@code type}, {@code subject} and {@code attempt}.
 */
public final class ActionCodec {

    private ActionCodec() {
    }

    public static ObjectNode encode(Action action) {
        // a JSON tree on purpose: the outbox payload's wire format, that an added action kind writes into (ActionKind.write)
        ObjectNode json = JsonReader.MAPPER.createObjectNode()
                .put("type", action.type().wire())
                .put("subject", action.subject())
                .put("attempt", action.attempt());
        switch (action) {
            case Action.SendSms sms -> json.put("to", sms.to()).put("text", sms.text());
            case Action.CreateHeroTask task -> json.put("title", task.title()).put("urgency", task.urgency().wire())
                    .put("body", task.body());
            case Action.PostHeroSlack post -> json.put("channel", post.channel()).put("text", post.text());
            case Action.SetTimer timer -> json.put("timerId", timer.timerId().toString())
                    .put("fireAt", timer.fireAt().toString());
            case Action.CancelTimer cancel -> json.put("timerId", cancel.timerId().toString());
            case Action.UpdateStage update -> json.put("stage", update.stage());
            case Action.StageChanged changed -> {
                json.put("stage", changed.stage()).put("at", changed.at().toString());
                changed.webhooks().forEach(url -> json.withArray("webhooks").add(url.toString()));
                EventCodec.putIfSet(json, "clientId", changed.clientId());
            }
            case Action.Extension extension -> write(kindOf(extension.type()), extension, json);
        }
        return json;
    }

    private static ActionKind<?> kindOf(ActionType type) {
        ActionKind<?> kind = ActionKinds.of(type);
        if (kind == null) {
            throw new IllegalArgumentException("no ActionKind is registered for action type '" + type.wire() + "'");
        }
        return kind;
    }

    private static <A extends Action.Extension> void write(ActionKind<A> kind, Action.Extension action, ObjectNode json) {
        kind.write(kind.javaType().cast(action), json);
    }

    public static Action decode(JsonNode node) {
        JsonReader r = JsonReader.of(node, "$");
        ActionType type;
        try {
            type = ActionType.fromWire(r.text("type"));
        } catch (IllegalArgumentException e) {
            throw new InvalidJsonException("type", e.getMessage());
        }
        String subject = r.text("subject");
        int attempt = r.integer("attempt");
        try {
            ActionKind<?> kind = ActionKinds.of(type);
            if (kind != null) {
                return kind.read(subject, attempt, r);
            }
            return switch (type.wire()) {
                case "send_sms" -> new Action.SendSms(AskId.parse(subject), attempt, r.text("to"), r.anyText("text"));
                case "create_hero_task" -> new Action.CreateHeroTask(subject, attempt, r.text("title"),
                        Urgency.fromWire(r.text("urgency")), r.anyText("body"));
                case "post_hero_slack" -> new Action.PostHeroSlack(subject, attempt, r.text("channel"), r.anyText("text"));
                case "set_timer" -> new Action.SetTimer(TimerId.parse(r.text("timerId")), r.instant("fireAt"));
                case "cancel_timer" -> new Action.CancelTimer(TimerId.parse(r.text("timerId")));
                case "update_stage" -> new Action.UpdateStage(subject, attempt, r.text("stage"));
                case "stage_changed" -> new Action.StageChanged(subject, attempt, r.text("stage"), r.instant("at"),
                        webhooks(r), r.optionalText("clientId"));
                default -> throw new IllegalArgumentException("no ActionKind is registered for action type '" + type.wire() + "'");
            };
        } catch (IllegalArgumentException e) {
            throw new InvalidJsonException("$", e.getMessage());
        }
    }

    private static List<URI> webhooks(JsonReader r) {
        List<URI> urls = new ArrayList<>();
        for (JsonNode url : r.array("webhooks")) {
            if (!url.isTextual()) {
                throw new InvalidJsonException(r.field("webhooks"), "must be an array of URLs");
            }
            urls.add(URI.create(url.textValue()));
        }
        return urls;
    }

    public static Action decode(String json) {
        return decode(JsonReader.parse(json).node());
    }
}
