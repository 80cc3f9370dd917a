package dev.loadflow.model.event;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.id.EventIds;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The decision one run took on one inbound event, logged in the same transaction as the event
 * and the outbox rows of its {@code actions}. A {@code filtered} decision is a noop the
 * deterministic filter took without calling the policy (a duplicate, a delivered outcome, a
 * stale timer, a Hero-channel failure). {@code closedAsks} lists the asks this decision ends
 * (answered, or escalated to a Hero). {@code provenance} says who decided (the SOP, the model,
 * or the SOP after the model failed) and what a model's decision cost; it is null for a
 * filtered decision and for decisions logged before it was recorded. {@code sop} names the client's
 * SOP version the decision followed; it is null for a filtered decision, for one no SOP rule took
 * (the Hero task after a duplicate key) and for decisions logged before it was recorded.
 */
public record DecisionRecorded(String eventId, String loadId, Instant decidedAt, String correlationId,
                               List<Action> actions, boolean filtered, boolean needsHeroTask, String reason,
                               List<String> closedAsks, Provenance provenance, SopRef sop) implements LogEntry {

    public static final String TYPE = "DecisionRecorded";

    public DecisionRecorded {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(loadId, "loadId");
        Objects.requireNonNull(decidedAt, "decidedAt");
        Objects.requireNonNull(reason, "reason");
        actions = List.copyOf(actions);
        closedAsks = List.copyOf(closedAsks);
        if (filtered && !actions.isEmpty()) {
            throw new IllegalArgumentException("a filtered decision takes no actions");
        }
    }

    /** A decision without its provenance (filtered, or as logged before provenance was recorded). */
    public DecisionRecorded(String eventId, String loadId, Instant decidedAt, String correlationId, List<Action> actions,
                            boolean filtered, boolean needsHeroTask, String reason, List<String> closedAsks) {
        this(eventId, loadId, decidedAt, correlationId, actions, filtered, needsHeroTask, reason, closedAsks, null, null);
    }

    /** A decision that names no SOP version (as logged before the version was recorded). */
    public DecisionRecorded(String eventId, String loadId, Instant decidedAt, String correlationId, List<Action> actions,
                            boolean filtered, boolean needsHeroTask, String reason, List<String> closedAsks,
                            Provenance provenance) {
        this(eventId, loadId, decidedAt, correlationId, actions, filtered, needsHeroTask, reason, closedAsks, provenance,
                null);
    }

    /** A filtered noop on {@code event}: no policy call, no actions. */
    public static DecisionRecorded filtered(InboundEvent event, Instant decidedAt, String reason) {
        return new DecisionRecorded(event.eventId(), event.loadId(), decidedAt, event.correlationId(),
                List.of(), true, false, reason, List.of());
    }

    /** A decision of the SOP on {@code event}. */
    public static DecisionRecorded decided(InboundEvent event, Instant decidedAt, List<Action> actions,
                                           boolean needsHeroTask, String reason, List<String> closedAsks) {
        return decided(event, decidedAt, actions, needsHeroTask, reason, closedAsks, Provenance.BY_SOP);
    }

    /** A decision of the policy on {@code event}, taken by {@code provenance}. */
    public static DecisionRecorded decided(InboundEvent event, Instant decidedAt, List<Action> actions,
                                           boolean needsHeroTask, String reason, List<String> closedAsks,
                                           Provenance provenance) {
        return decided(event, decidedAt, actions, needsHeroTask, reason, closedAsks, provenance, null);
    }

    /** A decision of the policy on {@code event}, taken by {@code provenance} under the SOP version {@code sop}. */
    public static DecisionRecorded decided(InboundEvent event, Instant decidedAt, List<Action> actions,
                                           boolean needsHeroTask, String reason, List<String> closedAsks,
                                           Provenance provenance, SopRef sop) {
        return new DecisionRecorded(event.eventId(), event.loadId(), decidedAt, event.correlationId(),
                actions, false, needsHeroTask, reason, closedAsks, Objects.requireNonNull(provenance, "provenance"), sop);
    }

    @Override
    public String entryId() {
        return EventIds.decision(eventId);
    }

    @Override
    public String kind() {
        return KIND_DECISION;
    }

    @Override
    public String typeName() {
        return TYPE;
    }

    @Override
    public Instant occurredAt() {
        return decidedAt;
    }

    @Override
    public String causationId() {
        return eventId;
    }
}
