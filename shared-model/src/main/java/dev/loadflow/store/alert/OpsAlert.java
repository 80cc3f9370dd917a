package dev.loadflow.store.alert;

import java.time.Instant;

/**
 * An alert for on-call, independent of the Hero tooling: a Hero-channel or internal action
 * died, or an outcome could not be published. {@code kind} says which; one alert per outbox row
 * and kind. {@code acknowledgedAt}: when an operator acknowledged it (or replayed its row);
 * null while nobody did.
 */
public record OpsAlert(long id, String loadId, String outboxId, String actionType, String kind, String message,
                       Instant raisedAt, Instant acknowledgedAt) {
}
