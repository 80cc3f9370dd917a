package dev.loadflow.model.event;


import java.time.Instant;

/**
 * One entry of a load's log: the inbound event a run processed, or the decision it took.
 * The log is the source of truth; load state is a projection of it.
 */
public sealed interface LogEntry permits InboundEvent, DecisionRecorded {

    String KIND_EVENT = "event";
    String KIND_DECISION = "decision";

    /** Unique within the load: the event id, or {@code dec:{eventId}} for a decision. */
    String entryId();

    String loadId();

    /** {@value #KIND_EVENT} or {@value #KIND_DECISION}. */
    String kind();

    /** The value of {@code event_log.type}: the envelope's type or {@code DecisionRecorded}. */
    String typeName();

    Instant occurredAt();

    String correlationId();

    String causationId();
}
