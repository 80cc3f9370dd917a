package dev.loadflow.store.queue;

import dev.loadflow.store.audit.AuditRecord;

import java.util.List;
import java.util.Optional;

/**
 * The load queue's dead letters: the poison messages its consumers parked
 * ({@link LoadQueue#park}), kept for an operator to read, redrive once the cause is fixed, or
 * acknowledge as handled. Every change is audited.
 */
public interface DeadLetters {

    /** Parked messages, newest first. */
    List<ParkedMessage> parked(int limit);

    /**
     * Puts a parked message back at the end of its load's queue (an operator fixed the cause)
     * and records {@code audit}: in the same transaction where the queue is in the database,
     * right after the change where it is not (SQS). Returns the audit row's id; empty (and no
     * audit row) if no such message is parked.
     */
    Optional<Long> redrive(String loadId, String messageId, AuditRecord audit);

    /**
     * Marks a parked message handled without running it (an operator took care of it another
     * way) and records {@code audit} in the same transaction: it stays listed, and retention
     * deletes it once its period has passed since. Returns the audit row's id; empty (and no
     * audit row) if no such message is parked or it was acknowledged already.
     *
     * @throws UnsupportedOperationException where the queue does not keep its dead letters
     *         itself (SQS: the dead-letter queue's own retention period decides)
     */
    default Optional<Long> acknowledgeParked(String loadId, String messageId, AuditRecord audit) {
        throw new UnsupportedOperationException("this queue's dead letters go by its own retention period; "
                + "redrive a message to run it");
    }
}
