package dev.loadflow.model.event;

import java.time.Instant;
import java.util.Objects;

/**
 * An operator skipped a load's held head message: logged in the message's place, so the load
 * goes on. Its entry id is the message's id, so the message counts as processed: should it
 * ever be delivered again, its run finds it done and acks it, and a run of it and the skip can
 * never both be logged (the log keeps entry ids unique per load). {@code messageType} is the
 * envelope's type, or {@code unreadable} when the message could not be read.
 */
public record MessageSkipped(String messageId, String loadId, String messageType, Instant skippedAt, String principal,
                             String reason) implements LogEntry {

    public static final String TYPE = "MessageSkipped";

    public MessageSkipped {
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(loadId, "loadId");
        Objects.requireNonNull(messageType, "messageType");
        Objects.requireNonNull(skippedAt, "skippedAt");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(reason, "reason");
    }

    @Override
    public String entryId() {
        return messageId;
    }

    @Override
    public String kind() {
        return KIND_SKIPPED;
    }

    @Override
    public String typeName() {
        return TYPE;
    }

    @Override
    public Instant occurredAt() {
        return skippedAt;
    }

    @Override
    public String correlationId() {
        return null;
    }

    @Override
    public String causationId() {
        return messageId;
    }
}
