package dev.loadflow.store.queue;

import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.json.EventCodec;

import java.time.Instant;

/**
 * A message handed to one consumer. {@code receiptHandle} names this delivery: ack, release
 * and extend take it, and a redelivery gets a new one. {@code receiveCount} counts deliveries,
 * this one included.
 */
public record ReceivedMessage(String loadId, String messageId, String body, String receiptHandle,
                              int receiveCount, Instant enqueuedAt) {

    public InboundEvent event() {
        return EventCodec.decode(body);
    }
}
