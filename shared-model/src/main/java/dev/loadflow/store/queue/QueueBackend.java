package dev.loadflow.store.queue;

import java.util.Objects;

/**
 * One load queue by its three roles: the queue its producers and consumer use, its dead
 * letters, and its read-only view. A backend (PostgreSQL, SQS FIFO) gives all three over the
 * same queue.
 */
public record QueueBackend(LoadQueue queue, DeadLetters deadLetters, QueueView view) {

    public QueueBackend {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(deadLetters, "deadLetters");
        Objects.requireNonNull(view, "view");
    }
}
