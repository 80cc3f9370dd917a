package dev.loadflow.model.event;


import java.time.Instant;

/**
 * One entry of a load's log: the inbound event a run processed, the decision it took, a
 * message an operator skipped in its place, or the marker of entries moved to the archive.
 * The log is the source of truth; load state is a projection of it.
 */
public sealed interface LogEntry permits InboundEvent, DecisionRecorded, MessageSkipped, LogArchived {

    String KIND_EVENT = "event";
    String KIND_DECISION = "decision";
    String KIND_SKIPPED = "skipped";
    String KIND_ARCHIVED = "archived";

    /**
     * Unique within the load: the event id, {@code dec:{eventId}} for a decision, the message id
     * for a skip, {@code archived:{throughSeq}} for an archive marker.
     */
    String entryId();

    String loadId();

    /** {@value #KIND_EVENT}, {@value #KIND_DECISION}, {@value #KIND_SKIPPED} or {@value #KIND_ARCHIVED}. */
    String kind();

    /** The value of {@code event_log.type}: the envelope's type, {@code DecisionRecorded}, {@code MessageSkipped} or {@code LogArchived}. */
    String typeName();

    Instant occurredAt();

    String correlationId();

    String causationId();
}
