package dev.loadflow.store.queue;

import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * A load held at its head message, which could not be processed: the message stays at the
 * head, the load's later messages wait. {@code messageType} is the envelope's type, or
 * {@code unreadable}; {@code receiptHandle} names the head's latest delivery (a retry or a skip
 * makes it visible at once through it), null before the first hand-back.
 */
public record HeldLoad(String loadId, String messageId, String messageType, String reason, Instant since,
                       State state, String receiptHandle) {

    /** The type a held message that could not be read is listed with. */
    public static final String UNREADABLE = "unreadable";

    /**
     * HELD: waiting for an operator. RETRY: an operator asked to run the head once more (a
     * failure holds it again). SKIPPED: an operator logged a {@code MessageSkipped} in its place;
     * the worker acks the message and the hold ends.
     */
    public enum State {
        HELD, RETRY, SKIPPED;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static State ofWire(String wire) {
            return valueOf(wire.toUpperCase(Locale.ROOT));
        }
    }

    public HeldLoad {
        Objects.requireNonNull(loadId, "loadId");
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(messageType, "messageType");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(state, "state");
    }

    /** A load newly held at {@code messageId}. */
    public static HeldLoad held(String loadId, String messageId, String messageType, String reason, Instant since) {
        return new HeldLoad(loadId, messageId, messageType, reason, since, State.HELD, null);
    }
}
