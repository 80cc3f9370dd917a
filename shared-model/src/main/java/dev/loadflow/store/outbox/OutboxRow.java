package dev.loadflow.store.outbox;

import java.time.Instant;
import java.util.UUID;

/**
 * An outbox row as stored. For a row handed out by {@link Outbox#pending}, {@code claimToken}
 * and {@code claimedUntil} are the caller's claim; {@code attempts} counts claims so far,
 * this one included; {@code firstAttemptAt} is when the row was first claimed, which is where
 * the retry budget starts.
 */
public record OutboxRow(String outboxId, String loadId, String actionType, String channel, String payload,
                        OutboxStatus status, int attempts, Instant availableAt, Instant firstAttemptAt,
                        UUID claimToken, Instant claimedUntil, String lastFailure, String receipt,
                        Instant dispatchedAt, Instant deadAt, String correlationId, String causationId,
                        Instant createdAt) {
}
