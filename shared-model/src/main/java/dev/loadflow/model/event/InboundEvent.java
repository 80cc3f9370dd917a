package dev.loadflow.model.event;

import dev.loadflow.model.id.EventIds;

import java.time.Instant;
import java.util.Objects;

/**
 * The event envelope: one message for one load, as it travels the load queue and as it is
 * logged. {@code receivedAt} is when loadflow took it in (from the application clock);
 * {@code correlationId} threads one story through every service, {@code causationId} names
 * the event or row that caused this one. {@code source} names the authenticated system that
 * sent it through ingest (null for what loadflow's own services publish); {@code traceparent}
 * is the W3C trace context the event's run continues (null: none).
 */
public record InboundEvent(String eventId, String loadId, Instant occurredAt, Instant receivedAt,
                           String correlationId, String causationId, EventPayload payload, String source,
                           String traceparent)
        implements LogEntry {

    /** An event loadflow's own services publish: no source, no trace yet. */
    public InboundEvent(String eventId, String loadId, Instant occurredAt, Instant receivedAt, String correlationId,
                        String causationId, EventPayload payload) {
        this(eventId, loadId, occurredAt, receivedAt, correlationId, causationId, payload, null, null);
    }

    /** An event with its source and no trace yet. */
    public InboundEvent(String eventId, String loadId, Instant occurredAt, Instant receivedAt, String correlationId,
                        String causationId, EventPayload payload, String source) {
        this(eventId, loadId, occurredAt, receivedAt, correlationId, causationId, payload, source, null);
    }

    /** This event as sent by {@code source}. */
    public InboundEvent withSource(String source) {
        return new InboundEvent(eventId, loadId, occurredAt, receivedAt, correlationId, causationId, payload, source,
                traceparent);
    }

    /**
     * This event in the trace {@code traceparent} names (a W3C {@code traceparent}: the ingest
     * request's span, the send whose outcome it is, the decision that set its timer); null
     * starts a new trace where it runs.
     */
    public InboundEvent withTraceparent(String traceparent) {
        return new InboundEvent(eventId, loadId, occurredAt, receivedAt, correlationId, causationId, payload, source,
                traceparent);
    }

    public InboundEvent {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(loadId, "loadId");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(receivedAt, "receivedAt");
        Objects.requireNonNull(payload, "payload");
    }

    public EventType type() {
        return payload.type();
    }

    @Override
    public String entryId() {
        return eventId;
    }

    @Override
    public String kind() {
        return KIND_EVENT;
    }

    @Override
    public String typeName() {
        return payload.type().wire();
    }

    /** Builds the {@code TimerFired} event the pump publishes for a due timer. */
    public static InboundEvent timerFired(dev.loadflow.model.id.TimerId timerId, Instant fireAt, Instant now,
                                          String correlationId) {
        return new InboundEvent(EventIds.timerFired(timerId), timerId.loadId(), fireAt, now, correlationId,
                timerId.toString(),
                new EventPayload.TimerFired(timerId.toString(), timerId.askId().toString(), timerId.attempt(), fireAt));
    }

    /** Builds the {@code ActionOutcome} event the dispatcher publishes for a finished outbox row. */
    public static InboundEvent actionOutcome(String loadId, EventPayload.ActionOutcome outcome, Instant now,
                                             String correlationId) {
        return new InboundEvent(EventIds.actionOutcome(outcome.outboxId(), outcome.status(), outcome.ambiguous(),
                outcome.round()), loadId, now, now,
                correlationId, outcome.outboxId(), outcome);
    }
}
