package dev.loadflow.dispatcher.fanout;

import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.processed.ProcessedEvents;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Fan-out rows (ADR 0006): one event, several subscribers. Each subscriber's success is
 * recorded in {@code processed_event} (handler = subscriber name, event = outbox id), so a
 * retry skips the subscribers that already succeeded; the row is delivered when all have;
 * a permanent refusal by any subscriber parks the row (poison, replayable).
 */
public final class Fanout {

    private final FanoutConfig config;
    private final ProcessedEvents processed;
    private final ChannelClients clients;
    private final Clock clock;

    public Fanout(FanoutConfig config, ProcessedEvents processed, ChannelClients clients, Clock clock) {
        this.config = config;
        this.processed = processed;
        this.clients = clients;
        this.clock = clock;
    }

    public SendResult deliver(OutboxRow row) {
        Map<String, FanoutConfig.Subscriber> subscribers = new TreeMap<>();
        config.subscribers().forEach((name, s) -> {
            if (s.events().contains(row.actionType())) {
                subscribers.put(name, s);
            }
        });
        Set<String> done = processed.handledBy(row.outboxId(), subscribers.keySet());
        List<String> retryable = new ArrayList<>();
        for (Map.Entry<String, FanoutConfig.Subscriber> entry : subscribers.entrySet()) {
            if (done.contains(entry.getKey())) {
                continue;
            }
            FanoutConfig.Subscriber subscriber = entry.getValue();
            SendResult result = clients.post(subscriber.url(), subscriber.timeout(), row.outboxId(), row.payload());
            switch (result) {
                case SendResult.Delivered delivered -> processed.markProcessed(entry.getKey(), row.outboxId(), clock.instant());
                case SendResult.Retryable failed -> retryable.add(entry.getKey() + ": " + failed.reason());
                case SendResult.Permanent refused -> {
                    return new SendResult.Permanent(entry.getKey() + ": " + refused.reason());
                }
            }
        }
        if (!retryable.isEmpty()) {
            return new SendResult.Retryable(String.join("; ", retryable), Optional.empty());
        }
        return new SendResult.Delivered("delivered to " + String.join(", ", subscribers.keySet()));
    }
}
