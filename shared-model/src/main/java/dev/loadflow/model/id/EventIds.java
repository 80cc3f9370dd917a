package dev.loadflow.model.id;

import dev.loadflow.model.event.OutcomeStatus;

/**
 * Deterministic ids of the events the system publishes to itself. Publishing twice yields
 * the same id, so the event store keeps one copy.
 */
public final class EventIds {

    private EventIds() {
    }

    private static final String EVENT = "evt:";

    /** {@code evt:{timerId}}: the id of the {@code TimerFired} event of one timer. */
    public static String timerFired(TimerId timerId) {
        return EVENT + timerId;
    }

    /**
     * {@code evt:{eventId}}: the subject of actions keyed by the inbound event that made them
     * rather than by an ask (a stage update, the Hero task after a duplicate action key).
     */
    public static String eventSubject(String eventId) {
        return EVENT + eventId;
    }

    /**
     * {@code out:{outboxId}:{status}}: the id of an {@code ActionOutcome}. It differs by status,
     * so a late {@code failed} next to a {@code delivered} for one key is recorded, not dropped.
     */
    public static String actionOutcome(String outboxId, OutcomeStatus status) {
        return "out:" + outboxId + ":" + status.wire();
    }

    /**
     * The id of an {@code ActionOutcome}: {@code out:{outboxId}:{status}} for a row's first ending,
     * {@code out:{outboxId}:ambiguous} when it was parked as ambiguous, and {@code :{round}} after
     * either from the second ending on (a replayed or resent row that ended again).
     */
    public static String actionOutcome(String outboxId, OutcomeStatus status, boolean ambiguous, int round) {
        return "out:" + outboxId + ":" + (ambiguous ? "ambiguous" : status.wire()) + (round > 1 ? ":" + round : "");
    }

    /** {@code dec:{eventId}}: the log entry id of the decision taken on one inbound event. */
    public static String decision(String eventId) {
        return "dec:" + eventId;
    }
}
