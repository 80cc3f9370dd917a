package dev.loadflow.store.queue;

import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.json.EventCodec;

import java.util.Objects;

/**
 * A message for the load queue: {@code loadId} is its message group, {@code messageId} its
 * deduplication id (the event id), {@code body} the event envelope as JSON.
 */
public record QueueMessage(String loadId, String messageId, String body) {

    public QueueMessage {
        Objects.requireNonNull(loadId, "loadId");
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(body, "body");
    }

    public static QueueMessage of(InboundEvent event) {
        return new QueueMessage(event.loadId(), event.eventId(), EventCodec.encodeToString(event));
    }

    public InboundEvent event() {
        return EventCodec.decode(body);
    }
}
