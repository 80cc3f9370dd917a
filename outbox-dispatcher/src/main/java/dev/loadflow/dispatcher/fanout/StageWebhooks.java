package dev.loadflow.dispatcher.fanout;

import dev.loadflow.dispatcher.send.ChannelBodies;
import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.Action;
import dev.loadflow.store.processed.ProcessedEvents;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A {@code stage_changed} row, fanned out (ADR 0006): {@code POST {url} {"loadId", "stage", "at"}}
 * to each of the client's stage webhooks, with the row's outbox id as {@code Idempotency-Key}.
 * Each webhook's success is recorded in {@code processed_event} (handler = its URL, event = the
 * outbox id), so a retry skips the webhooks that already have it and a failing one is retried
 * alone; the row is delivered when every webhook has it. Every webhook is tried each time, whatever
 * another answered: a permanent refusal by one parks the row only after the others were tried
 * (replayable: the webhooks that had it are still skipped).
 */
public final class StageWebhooks {

    private final ProcessedEvents processed;
    private final ChannelClients clients;
    private final Duration timeout;
    private final Clock clock;

    public StageWebhooks(ProcessedEvents processed, ChannelClients clients, Duration timeout, Clock clock) {
        this.processed = processed;
        this.clients = clients;
        this.timeout = timeout;
        this.clock = clock;
    }

    public SendResult deliver(String outboxId, String loadId, Action.StageChanged changed) {
        List<String> urls = changed.webhooks().stream().map(URI::toString).distinct().toList();
        Set<String> done = processed.handledBy(outboxId, urls);
        ChannelBodies.StageChange body = new ChannelBodies.StageChange(loadId, changed.stage(), changed.at().toString());
        List<String> retryable = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (String url : urls) {
            if (done.contains(url)) {
                continue;
            }
            switch (clients.post(URI.create(url), timeout, outboxId, body)) {
                case SendResult.Delivered delivered -> processed.markProcessed(url, outboxId, clock.instant());
                case SendResult.Retryable failed -> retryable.add(url + ": " + failed.reason());
                case SendResult.Permanent permanent -> refused.add(url + ": " + permanent.reason());
            }
        }
        if (!refused.isEmpty()) {
            refused.addAll(retryable);
            return new SendResult.Permanent(String.join("; ", refused));
        }
        if (!retryable.isEmpty()) {
            return new SendResult.Retryable(String.join("; ", retryable), Optional.empty());
        }
        return new SendResult.Delivered("stage " + changed.stage() + " delivered to " + urls.size() + " webhook(s)");
    }
}
