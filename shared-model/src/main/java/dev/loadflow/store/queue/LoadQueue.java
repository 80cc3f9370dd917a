package dev.loadflow.store.queue;

import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.eventlog.EventStore;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The load queue: at-least-once, FIFO per load (message group = load id), parallel across
 * loads, with a visibility timeout.
 *
 * <p>Concurrency contract: at most one message per load is in flight. A load's next message
 * is not handed out until the one in flight is acked, released, or its visibility timeout
 * ends (then the same message is delivered again, with a new receipt handle). Messages of
 * different loads are handed out in parallel. {@link #enqueue} is idempotent on
 * {@code (loadId, messageId)} while the message is queued. Calls block; call them from a
 * worker or virtual thread.
 */
public interface LoadQueue {

    /** Queues {@code message}; false if a message with its id is already queued for its load. */
    boolean enqueue(QueueMessage message);

    /** What became of an inbound event handed to {@link #enqueueUnlessLogged}. */
    enum Intake {
        /** Its load's log has it already: nothing queued. */
        LOGGED,
        QUEUED,
        /** A message with its id is queued already. */
        ALREADY_QUEUED
    }

    /**
     * Ingest's step: queues {@code message} (an inbound event: its message id is the event id)
     * unless {@code events} has the event logged already. A backend in the log's own database
     * does both in one round trip.
     */
    default Intake enqueueUnlessLogged(QueueMessage message, EventStore events) {
        if (events.contains(message.loadId(), message.messageId())) {
            return Intake.LOGGED;
        }
        return enqueue(message) ? Intake.QUEUED : Intake.ALREADY_QUEUED;
    }

    /**
     * {@link #enqueueUnlessLogged} for several inbound events (ingest's group commit): one result
     * per message, in order, as if each went alone in that order (a second message with the id
     * of an earlier one is {@link Intake#ALREADY_QUEUED}). A backend in the log's own database
     * does them all in one round trip.
     */
    default List<Intake> enqueueAllUnlessLogged(List<QueueMessage> messages, EventStore events) {
        return messages.stream().map(message -> enqueueUnlessLogged(message, events)).toList();
    }

    /**
     * Hands out up to {@code max} messages, at most one per load, each the oldest of its load.
     * When none is visible, waits up to {@code wait} for one (long polling), then returns what
     * there is, possibly nothing.
     */
    List<ReceivedMessage> receive(int max, Duration wait);

    /**
     * Queues several messages, in order; a backend that can does it in one round trip. The
     * same idempotency as {@link #enqueue} applies to each.
     */
    default void enqueueAll(List<QueueMessage> messages) {
        messages.forEach(this::enqueue);
    }

    /** Deletes the delivered message; false if the handle is stale (the message was redelivered or acked). */
    boolean ack(String receiptHandle);

    /**
     * Acks several delivered messages; a backend that can does it in one round trip.
     *
     * @return how many were acked (stale handles are not)
     */
    default int ackAll(List<String> receiptHandles) {
        int acked = 0;
        for (String handle : receiptHandles) {
            if (ack(handle)) {
                acked++;
            }
        }
        return acked;
    }

    /** Gives the message back: its load is visible again after {@code delay}. False if the handle is stale. */
    boolean release(String receiptHandle, Duration delay);

    /**
     * Makes the head of {@code loadId}, given back with a delay, visible at once, through the
     * handle of its last delivery (held by whoever gave it back, e.g. in {@code held_load}).
     * False if that handle is stale or the message is in flight: it comes back when it would have.
     */
    boolean wake(String loadId, String receiptHandle);

    /** Keeps the message invisible for {@code visibility} from now. False if the handle is stale. */
    boolean extend(String receiptHandle, Duration visibility);

    /**
     * Parks a poison message: it leaves the queue for the dead-letter store (never dropped) and
     * its load's next message can go ahead. False if the handle is stale.
     */
    boolean park(String receiptHandle, String reason);

    /** Parked messages, newest first. */
    List<ParkedMessage> parked(int limit);

    /**
     * Puts a parked message back at the end of its load's queue (an operator fixed the cause)
     * and records {@code audit}: in the same transaction where the queue is in the database,
     * right after the change where it is not (SQS). Returns the audit row's id; empty (and no
     * audit row) if no such message is parked.
     */
    Optional<Long> redrive(String loadId, String messageId, AuditRecord audit);

    QueueStats stats();

    /**
     * How many messages wait behind each load's head, for those of {@code loadIds} with queued
     * messages; a backend that cannot count per load (SQS) answers an empty map.
     */
    default Map<String, Integer> waiting(Collection<String> loadIds) {
        return Map.of();
    }
}
