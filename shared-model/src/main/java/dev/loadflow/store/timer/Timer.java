package dev.loadflow.store.timer;

import dev.loadflow.model.id.TimerId;

import java.time.Instant;
import java.util.Objects;

/**
 * A durable timer as stored. {@code fireAt} is the decision's time plus the client's
 * retry-after; {@code firedAt} and {@code cancelledAt} are set by the final transitions.
 */
public record Timer(TimerId timerId, Instant fireAt, TimerStatus status, Instant firedAt, Instant cancelledAt,
                    Instant createdAt, String correlationId, String traceparent) {

    public Timer {
        Objects.requireNonNull(timerId, "timerId");
        Objects.requireNonNull(fireAt, "fireAt");
        Objects.requireNonNull(status, "status");
    }

    /** A timer to schedule, outside any trace. */
    public static Timer schedule(TimerId timerId, Instant fireAt, String correlationId) {
        return schedule(timerId, fireAt, correlationId, null);
    }

    /** A timer to schedule, whose firing continues the trace {@code traceparent} names (the send that set it). */
    public static Timer schedule(TimerId timerId, Instant fireAt, String correlationId, String traceparent) {
        return new Timer(timerId, fireAt, TimerStatus.SCHEDULED, null, null, null, correlationId, traceparent);
    }

    public String loadId() {
        return timerId.loadId();
    }
}
