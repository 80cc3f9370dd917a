package dev.loadflow.dispatcher.send;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.store.outbox.OutboxRow;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The external channels: turns an outbox row into the request DESIGN.md pins for its channel
 * and classifies the answer.
 * <ul>
 *   <li>SMS: {@code POST {sms.url}/messages {"to", "text"}}</li>
 *   <li>Hero tasks: {@code POST {hero.url}/tasks {"loadId", "title", "urgency", "body"}}</li>
 *   <li>Hero Slack: {@code POST {slack.url} {"channel", "text"}}</li>
 * </ul>
 */
public final class ChannelClients {

    private final ChannelsConfig config;
    private final ChannelTransport transport;
    private final Clock clock;

    public ChannelClients(ChannelsConfig config, ChannelTransport transport, Clock clock) {
        this.config = config;
        this.transport = transport;
        this.clock = clock;
    }

    /** Sends {@code row} to its channel ({@code sms}, {@code hero} or {@code slack}). */
    public SendResult send(OutboxRow row) {
        JsonNode payload = JsonReader.parse(row.payload()).node();
        ObjectNode body = JsonReader.MAPPER.createObjectNode();
        ChannelsConfig.Endpoint endpoint;
        String path;
        switch (row.channel()) {
            case "sms" -> {
                endpoint = config.sms();
                path = "/messages";
                body.put("to", payload.path("to").asText()).put("text", payload.path("text").asText());
            }
            case "hero" -> {
                endpoint = config.hero();
                path = "/tasks";
                body.put("loadId", row.loadId()).put("title", payload.path("title").asText())
                        .put("urgency", payload.path("urgency").asText()).put("body", payload.path("body").asText());
            }
            case "slack" -> {
                endpoint = config.slack();
                path = "";
                body.put("channel", payload.path("channel").asText()).put("text", payload.path("text").asText());
            }
            default -> {
                return new SendResult.Permanent("no external channel '" + row.channel() + "'");
            }
        }
        Optional<URI> base = endpoint.url();
        if (base.isEmpty()) {
            return new SendResult.Permanent("loadflow.channels." + row.channel() + ".url is not configured");
        }
        return post(URI.create(stripSlash(base.get().toString()) + path), endpoint.timeout(), row.outboxId(), body.toString());
    }

    /** POSTs {@code json} to {@code url} with the idempotency key and classifies the answer. */
    public SendResult post(URI url, Duration timeout, String idempotencyKey, String json) {
        try {
            ChannelTransport.Answer answer = transport.post(url, timeout, idempotencyKey, json);
            return SendResult.of(answer.status(), answer.body(), answer.retryAfter(), clock);
        } catch (ChannelTransport.Unreachable e) {
            return new SendResult.Retryable("no answer from " + url + ": " + e.getMessage(), Optional.empty());
        }
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
