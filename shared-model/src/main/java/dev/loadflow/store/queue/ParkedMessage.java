package dev.loadflow.store.queue;

import java.time.Instant;

/**
 * A poison message parked out of the load queue, with why and when; {@code acknowledgedAt}: when
 * an operator marked it handled (null while nobody did, and always on SQS).
 */
public record ParkedMessage(String loadId, String messageId, String body, Instant enqueuedAt, int receiveCount,
                           Instant parkedAt, String reason, Instant acknowledgedAt) {
}
