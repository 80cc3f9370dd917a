package dev.loadflow.dispatcher.fanout;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.EmptyWebhookSecretException;
import com.standardwebhooks.exceptions.WebhookSigningException;
import dev.loadflow.dispatcher.send.ChannelBodies;
import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.ChannelSender;
import dev.loadflow.dispatcher.send.JsonEndpoint;
import dev.loadflow.dispatcher.send.PerClientKeys;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.processed.ProcessedEvents;

import io.opentelemetry.context.Context;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * A {@code stage_changed} row, fanned out (ADR 0006): {@code POST {url} {"loadId", "stage", "at"}}
 * to each of the client's stage webhooks, with the row's outbox id as {@code Idempotency-Key}, and
 * signed as the Standard Webhooks specification has it when the client has a secret.
 * Each webhook's success is recorded in {@code processed_event} (handler = its URL, event = the
 * outbox id), so a retry skips the webhooks that already have it and a failing one is retried
 * alone; the row is delivered when every webhook has it. The webhooks still waiting are called
 * side by side. A webhook failing for a moment keeps the row retrying, whatever another answered;
 * one that refuses for good parks the row only once every other has it (or refused too), so a
 * replay tries only the refusing ones again.
 */
public final class StageWebhooks implements ChannelSender<Action.StageChanged> {

    private final ProcessedEvents processed;
    private final ChannelClients clients;
    private final Duration timeout;
    private final Clock clock;
    private final Map<String, Webhook> signers;

    /** Stage webhooks sent unsigned. */
    public StageWebhooks(ProcessedEvents processed, ChannelClients clients, Duration timeout, Clock clock) {
        this(processed, clients, timeout, clock, Map.of());
    }

    /** @param secrets per client id, the secret its webhooks are signed with ({@code whsec_} and base64) */
    public StageWebhooks(ProcessedEvents processed, ChannelClients clients, Duration timeout, Clock clock,
                         Map<String, String> secrets) {
        this.processed = processed;
        this.clients = clients;
        this.timeout = timeout;
        this.clock = clock;
        Map<String, Webhook> signers = new HashMap<>();
        PerClientKeys.folded(secrets, "loadflow.channels.stage-webhooks.clients.<id>.secret").forEach((clientId, secret) -> {
            try {
                signers.put(clientId, new Webhook(secret));
            } catch (EmptyWebhookSecretException | IllegalArgumentException e) {
                throw new IllegalArgumentException("loadflow.channels.stage-webhooks.clients." + clientId
                        + ".secret is whsec_ and the base64 of a key: " + e.getMessage(), e);
            }
        });
        this.signers = Map.copyOf(signers);
    }

    @Override
    public Channel channel() {
        return Channel.FANOUT;
    }

    @Override
    public Class<Action.StageChanged> actionType() {
        return Action.StageChanged.class;
    }

    /** Each of the client's webhooks, posted through {@code http} as this fan-out's clients post. */
    @Override
    public SendResult send(OutboxRow row, Action.StageChanged changed, ChannelClients http) {
        return deliver(row.outboxId(), row.loadId(), changed);
    }

    public SendResult deliver(String outboxId, String loadId, Action.StageChanged changed) {
        List<String> urls = changed.webhooks().stream().map(URI::toString).distinct().toList();
        Set<String> done = processed.handledBy(outboxId, urls);
        String body;
        try {
            body = JsonReader.MAPPER.writeValueAsString(
                    new ChannelBodies.StageChange(loadId, changed.stage(), changed.at().toString()));
        } catch (JsonProcessingException e) {
            return new SendResult.Permanent("body not serialisable: " + e.getOriginalMessage());
        }
        Webhook signer = changed.clientId() == null ? null : signers.get(PerClientKeys.fold(changed.clientId()));
        Map<String, String> headers = signed(signer, outboxId, body);
        List<String> waiting = urls.stream().filter(url -> !done.contains(url)).toList();
        List<SendResult> results = sideBySide(waiting, url -> clients.post(URI.create(url), timeout, outboxId, body, headers));
        List<String> retryable = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (int i = 0; i < waiting.size(); i++) {
            String url = waiting.get(i);
            switch (results.get(i)) {
                case SendResult.Delivered delivered -> processed.markProcessed(url, outboxId, clock.instant());
                case SendResult.Retryable failed -> retryable.add(url + ": " + failed.reason());
                // a signed webhook carries webhook-id (the outbox id): its receiver dedupes on it
                case SendResult.Unknown lost -> retryable.add(url + ": " + lost.reason());
                case SendResult.Permanent permanent -> refused.add(url + ": " + permanent.reason());
            }
        }
        if (!retryable.isEmpty()) {
            // a receiver failing for a while is tried again (alone with those that refused: the others had it);
            // one refusing for good does not park the row while another may still take it
            retryable.addAll(refused);
            return new SendResult.Retryable(String.join("; ", retryable), Optional.empty());
        }
        if (!refused.isEmpty()) {
            return new SendResult.Permanent(String.join("; ", refused));
        }
        return new SendResult.Delivered("stage " + changed.stage() + " delivered to " + urls.size() + " webhook(s)");
    }

    /**
     * Calls {@code send} for each receiver at once, each on a virtual thread of its own in the
     * send's trace: one slow receiver does not hold up the others' requests.
     */
    private static List<SendResult> sideBySide(List<String> urls, Function<String, SendResult> send) {
        if (urls.size() <= 1) {
            return urls.stream().map(send).toList();
        }
        try (ExecutorService each = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<SendResult>> calls = urls.stream()
                    .map(url -> each.submit(Context.current().wrap(() -> send.apply(url)))).toList();
            List<SendResult> results = new ArrayList<>();
            for (Future<SendResult> call : calls) {
                results.add(outcomeOf(call));
            }
            return results;
        }
    }

    private static SendResult outcomeOf(Future<SendResult> call) {
        try {
            return call.get();
        } catch (ExecutionException e) {
            return new SendResult.Retryable(e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage(),
                    Optional.empty());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new SendResult.Retryable("interrupted", Optional.empty());
        }
    }

    /**
     * The Standard Webhooks headers of {@code body}: its id (the outbox id, the same on every retry, so
     * a receiver dedupes on it), the time of this attempt, and the signature of both with the body;
     * none without a signer.
     */
    private Map<String, String> signed(Webhook signer, String id, String body) {
        if (signer == null) {
            return Map.of();
        }
        long timestamp = clock.instant().getEpochSecond();
        try {
            return Map.of(JsonEndpoint.WEBHOOK_ID, id, JsonEndpoint.WEBHOOK_TIMESTAMP, Long.toString(timestamp),
                    JsonEndpoint.WEBHOOK_SIGNATURE, signer.sign(id, timestamp, body));
        } catch (WebhookSigningException e) {
            throw new IllegalStateException("a stage webhook could not be signed: " + e.getMessage(), e);
        }
    }
}
