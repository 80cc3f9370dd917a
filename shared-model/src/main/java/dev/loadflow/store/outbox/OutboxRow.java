package dev.loadflow.store.outbox;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.json.ActionCodec;
import dev.loadflow.model.json.InvalidJsonException;

import java.time.Instant;
import java.util.UUID;

/**
 * An outbox row as stored. For a row handed out by {@link Outbox#pending}, {@code claimToken}
 * and {@code claimedUntil} are the caller's claim; {@code attempts} counts claims so far,
 * this one included; {@code firstAttemptAt} is when the row was first claimed, which is where
 * the retry budget starts. {@code payload} is the row's action as {@link ActionCodec} wrote it;
 * {@link #action()} reads it back. {@code traceparent}: the trace the row's send continues (the
 * decision's run), null outside any. {@code unsureSince}: when an attempt's answer was lost on a
 * channel that keeps no idempotency key (the provider may have the message): the next attempt
 * asks the provider first; null otherwise. {@code acknowledgedAt}: when an operator acknowledged
 * the dead row (retention may delete it a period after); null while nobody did.
 */
public record OutboxRow(String outboxId, String loadId, String actionType, Channel channel, String payload,
                        OutboxStatus status, int attempts, Instant availableAt, Instant firstAttemptAt,
                        UUID claimToken, Instant claimedUntil, String lastFailure, String receipt,
                        Instant dispatchedAt, Instant deadAt, String correlationId, String causationId,
                        Instant createdAt, String traceparent, Instant unsureSince, Instant acknowledgedAt) {

    /** A row nobody acknowledged. */
    public OutboxRow(String outboxId, String loadId, String actionType, Channel channel, String payload,
                     OutboxStatus status, int attempts, Instant availableAt, Instant firstAttemptAt, UUID claimToken,
                     Instant claimedUntil, String lastFailure, String receipt, Instant dispatchedAt, Instant deadAt,
                     String correlationId, String causationId, Instant createdAt, String traceparent, Instant unsureSince) {
        this(outboxId, loadId, actionType, channel, payload, status, attempts, availableAt, firstAttemptAt, claimToken,
                claimedUntil, lastFailure, receipt, dispatchedAt, deadAt, correlationId, causationId, createdAt, traceparent,
                unsureSince, null);
    }

    /** A row no attempt left unsure of. */
    public OutboxRow(String outboxId, String loadId, String actionType, Channel channel, String payload,
                     OutboxStatus status, int attempts, Instant availableAt, Instant firstAttemptAt, UUID claimToken,
                     Instant claimedUntil, String lastFailure, String receipt, Instant dispatchedAt, Instant deadAt,
                     String correlationId, String causationId, Instant createdAt, String traceparent) {
        this(outboxId, loadId, actionType, channel, payload, status, attempts, availableAt, firstAttemptAt, claimToken,
                claimedUntil, lastFailure, receipt, dispatchedAt, deadAt, correlationId, causationId, createdAt, traceparent,
                null);
    }

    /** A row outside any trace. */
    public OutboxRow(String outboxId, String loadId, String actionType, Channel channel, String payload,
                     OutboxStatus status, int attempts, Instant availableAt, Instant firstAttemptAt, UUID claimToken,
                     Instant claimedUntil, String lastFailure, String receipt, Instant dispatchedAt, Instant deadAt,
                     String correlationId, String causationId, Instant createdAt) {
        this(outboxId, loadId, actionType, channel, payload, status, attempts, availableAt, firstAttemptAt, claimToken,
                claimedUntil, lastFailure, receipt, dispatchedAt, deadAt, correlationId, causationId, createdAt, null);
    }

    /** This row in the trace {@code traceparent} names (its send's span, which its outcome and timer continue). */
    public OutboxRow withTraceparent(String traceparent) {
        return new OutboxRow(outboxId, loadId, actionType, channel, payload, status, attempts, availableAt, firstAttemptAt,
                claimToken, claimedUntil, lastFailure, receipt, dispatchedAt, deadAt, correlationId, causationId,
                createdAt, traceparent, unsureSince, acknowledgedAt);
    }

    /** This row as one whose earlier attempt may have reached its provider since {@code since} (its next attempt asks first). */
    public OutboxRow unsureSince(Instant since) {
        return new OutboxRow(outboxId, loadId, actionType, channel, payload, status, attempts, availableAt, firstAttemptAt,
                claimToken, claimedUntil, lastFailure, receipt, dispatchedAt, deadAt, correlationId, causationId,
                createdAt, traceparent, since, acknowledgedAt);
    }

    /**
     * The action this row carries, read strictly: a payload that is not a whole action, or
     * that names another action type or channel than the row's columns, is refused.
     *
     * @throws InvalidJsonException naming what is wrong
     */
    public Action action() {
        Action action = ActionCodec.decode(payload);
        if (!action.type().wire().equals(actionType) || action.type().channel() != channel) {
            throw new InvalidJsonException("type", "the payload is a " + action.type().wire() + " on channel "
                    + action.type().channel().wire() + ", the row says " + actionType + " on " + channel.wire());
        }
        return action;
    }
}
