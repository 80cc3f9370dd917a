package dev.loadflow.store.queue;

import dev.loadflow.store.eventlog.EventStore;

import java.time.Duration;
import java.util.List;

/**
 * The load queue: at-least-once, FIFO per load (message group = load id), parallel across
 * loads, with a visibility timeout.
 *
 * <p>Concurrency contract: a load's messages are in flight with one consumer at a time. A
 * receive hands out a load's head, or (with {@code perLoad} above 1) its head and the messages
 * right behind it, in order: a <em>run</em> of the load. None of the load's later messages is
 * handed out until the whole run is settled: acked, given back, or its visibility timeout
 * ended (then the same messages are delivered again, with new receipt handles). A consumer acks
 * a run's messages in order, a prefix of it; giving one back ({@link #release}, {@link #park})
 * gives back every later message of its run too. Messages of different loads are handed out
 * in parallel. {@link #enqueue} is idempotent on
 * {@code (loadId, messageId)} while the message is queued. Calls block; call them from a
 * worker or virtual thread.
 *
 * <p>This is the queue as its producers (ingest, the timer pump, the dispatcher's outcomes)
 * and its consumer see it. What a consumer parks, operators read and redrive through
 * {@link DeadLetters}; the console and the metrics count it through {@link QueueView}. A
 * backend gives all three ({@link QueueBackend}).
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
     *
     * @throws MessageRefusedException the queue refused one message of the batch; those before it are queued
     */
    default List<Intake> enqueueAllUnlessLogged(List<QueueMessage> messages, EventStore events) {
        return messages.stream().map(message -> enqueueUnlessLogged(message, events)).toList();
    }

    /**
     * Hands out up to {@code max} messages, at most one per load, each the oldest of its load.
     * When none is visible, waits up to {@code wait} for one (long polling), then returns what
     * there is, possibly nothing.
     */
    default List<ReceivedMessage> receive(int max, Duration wait) {
        return receive(max, 1, wait);
    }

    /**
     * Hands out runs of up to {@code maxLoads} loads: each its oldest message and up to
     * {@code perLoad - 1} of the messages queued right behind it, in order (a busy load's
     * backlog is decided in one go: one log read, one append). A backend may hand out shorter
     * runs (SQS: up to ten messages a call; a redelivered head alone). When none is visible,
     * waits up to {@code wait} for one (long polling), then returns what there is, possibly
     * nothing. The messages of one load are adjacent in the answer, in their order.
     */
    List<ReceivedMessage> receive(int maxLoads, int perLoad, Duration wait);

    /**
     * Queues several messages, in order; a backend that can does it in one round trip. The
     * same idempotency as {@link #enqueue} applies to each.
     */
    default void enqueueAll(List<QueueMessage> messages) {
        messages.forEach(this::enqueue);
    }

    /**
     * Deletes the delivered message; false if the handle is stale (the message was redelivered or
     * acked). A run's messages are acked in order: its load is free again when the run's last is.
     */
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

    /**
     * Gives the message back, and every later message of its run (they were not run): its load is
     * visible again after {@code delay}. A backend that can does not count the later ones' delivery
     * toward their receive count. False if the handle is stale.
     */
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
     * Parks a poison message: it leaves the queue for its {@link DeadLetters} (never dropped) and
     * its load's next message can go ahead; the later messages of its run are given back, as by
     * {@link #release} at once. False if the handle is stale.
     */
    boolean park(String receiptHandle, String reason);
}
