package dev.loadflow.store.outbox;

import java.time.Instant;

/** One failed attempt of an outbox row; {@code parked} when it killed the row. */
public record OutboxFailure(String outboxId, int attempt, Instant failedAt, String failure, boolean parked) {
}
