package dev.loadflow.store.queue;

import java.time.Instant;
import java.util.Optional;

/** How deep the queue is and how long its oldest message has waited. */
public record QueueStats(long depth, Optional<Instant> oldestEnqueuedAt) {
}
