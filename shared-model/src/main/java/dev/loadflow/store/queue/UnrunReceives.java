package dev.loadflow.store.queue;

import java.util.Collection;
import java.util.Map;

/**
 * The receives of queued messages that did not run: a message handed out behind its load's head
 * (or past what a run keeps) and given back unrun, because the head failed, was held or was
 * parked. A queue that counts every receive and cannot take a count back (SQS FIFO's
 * {@code ApproximateReceiveCount}) records them here, so that a message's deliveries are its
 * receive count less these, and waiting behind a held head never makes a message poison (the
 * PostgreSQL queue takes the count back in its own row instead).
 */
public interface UnrunReceives {

    /** A queued message, by its load and its id within the load. */
    record Key(String loadId, String messageId) {
    }

    /** Adds one receive that did not run to each of {@code messages} (a message named twice gains two). */
    void add(Collection<Key> messages);

    /** The unrun receives recorded for those of {@code messages} that have any. */
    Map<Key, Integer> of(Collection<Key> messages);

    /** Forgets {@code messages}: they left the queue (acked or parked). */
    void forget(Collection<Key> messages);
}
