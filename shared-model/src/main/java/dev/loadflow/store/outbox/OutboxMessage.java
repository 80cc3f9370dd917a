package dev.loadflow.store.outbox;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.json.ActionCodec;

import java.time.Instant;
import java.util.Objects;

/**
 * A new outbox row, written by {@code EventStore.append} in the decision's transaction.
 * {@code availableAt} is set explicitly from the application clock (ADR 0006: a database
 * default of the database clock made fresh rows briefly unclaimable).
 */
public record OutboxMessage(String outboxId, String loadId, String actionType, Channel channel, String payload,
                            Instant availableAt, String correlationId, String causationId, String traceparent) {

    /** A row outside any trace. */
    public OutboxMessage(String outboxId, String loadId, String actionType, Channel channel, String payload,
                         Instant availableAt, String correlationId, String causationId) {
        this(outboxId, loadId, actionType, channel, payload, availableAt, correlationId, causationId, null);
    }

    public OutboxMessage {
        Objects.requireNonNull(outboxId, "outboxId");
        Objects.requireNonNull(loadId, "loadId");
        Objects.requireNonNull(actionType, "actionType");
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(availableAt, "availableAt");
    }

    /** The row for one action of a decision: its key is the outbox id. */
    public static OutboxMessage of(String loadId, Action action, Instant availableAt, String correlationId,
                                   String causationId) {
        return of(loadId, action, availableAt, correlationId, causationId, null);
    }

    /** The row for one action of a decision, its send continuing the trace {@code traceparent} names (the run's). */
    public static OutboxMessage of(String loadId, Action action, Instant availableAt, String correlationId,
                                   String causationId, String traceparent) {
        return new OutboxMessage(action.key(loadId).toString(), loadId, action.type().wire(),
                action.type().channel(), ActionCodec.encode(action).toString(), availableAt, correlationId,
                causationId, traceparent);
    }
}
