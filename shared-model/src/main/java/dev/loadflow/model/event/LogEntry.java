package dev.loadflow.model.event;


import java.time.Instant;

/**
 * One entry of a load's log: the inbound event a run processed, the decision it took, or a
 * message an operator skipped in its place.
 * The log is the source of truth; load state is a projection of it.
 */
public sealed interface LogEntry permits InboundEvent, DecisionRecorded, MessageSkipped {

    String KIND_EVENT = "event";
    String KIND_DECISION = "decision";
    String KIND_SKIPPED = "skipped";

    /** Unique within the load: the event id, {@code dec:{eventId}} for a decision, the message id for a skip. */
    String entryId();

    String loadId();

    /** {@value #KIND_EVENT}, {@value #KIND_DECISION} or {@value #KIND_SKIPPED}. */
    String kind();

    /** The value of {@code event_log.type}: the envelope's type, {@code DecisionRecorded} or {@code MessageSkipped}. */
    String typeName();

    Instant occurredAt();

    String correlationId();

    String causationId();
}
