package dev.loadflow.model.id;

import dev.loadflow.model.action.ActionType;

import java.util.Objects;

/**
 * The key of one action, which is also its outbox id and the {@code Idempotency-Key} the
 * channel services dedupe on: {@code {loadId}/{subject}/{attempt}/{actionType}}, e.g.
 * {@code 481207/ask:eta_request:ping_0700/1/send_sms}. The subject is the ask id, or
 * {@code evt:{eventId}} for the Hero task raised after a duplicate action key.
 */
public record ActionKey(String loadId, String subject, int attempt, ActionType actionType) {

    public ActionKey {
        InboundIds.requireLoadId(loadId);
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(actionType, "actionType");
        if (subject.isEmpty() || subject.contains("/")) {
            throw new IllegalArgumentException("subject must be non-empty and hold no '/', got '" + subject + "'");
        }
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt starts at 1, got " + attempt);
        }
    }

    public static ActionKey of(String loadId, AskId askId, int attempt, ActionType actionType) {
        return new ActionKey(loadId, askId.toString(), attempt, actionType);
    }

    /**
     * The one Hero task a run falls back to when its decision hit a duplicate action key:
     * {@code {loadId}/evt:{eventId}/1/create_hero_task}, keyed by the inbound event so that
     * the event is never lost and a redelivery of it cannot raise a second task.
     */
    public static ActionKey heroTaskAfterDuplicate(String loadId, String eventId) {
        return new ActionKey(loadId, EventIds.eventSubject(eventId), 1, ActionType.CREATE_HERO_TASK);
    }

    /**
     * The Hero task that escalates a failed outcome of {@code failed} (an action's key): the row's
     * own ask and attempt for its first failure ({@code {loadId}/{askId}/{attempt}/create_hero_task});
     * for an ambiguous ending or a later round, a subject of that ending of its own
     * ({@code out:{askId}:{attempt}:{actionType}:{failed|ambiguous}:{round}}), so each ending is
     * escalated once, and none is mistaken for another.
     */
    public static ActionKey escalation(ActionKey failed, boolean ambiguous, int round) {
        if (!ambiguous && round == 1) {
            return new ActionKey(failed.loadId(), failed.subject(), failed.attempt(), ActionType.CREATE_HERO_TASK);
        }
        return new ActionKey(failed.loadId(), "out:" + failed.subject() + ":" + failed.attempt() + ":"
                + failed.actionType().wire() + ":" + (ambiguous ? "ambiguous" : "failed") + ":" + round, 1,
                ActionType.CREATE_HERO_TASK);
    }

    /** Parses {@code {loadId}/{subject}/{attempt}/{actionType}}. */
    public static ActionKey parse(String value) {
        String[] parts = value == null ? new String[0] : value.split("/", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("not an action key: " + InboundIds.quote(value));
        }
        try {
            return new ActionKey(parts[0], parts[1], Integer.parseInt(parts[2]), ActionType.fromWire(parts[3]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an action key: '" + value + "'", e);
        }
    }

    @Override
    public String toString() {
        return loadId + "/" + subject + "/" + attempt + "/" + actionType.wire();
    }
}
