package dev.loadflow.dispatcher.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.loadflow.dispatcher.send.ChannelBodies;
import dev.loadflow.dispatcher.send.ChannelTransport;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.json.JsonReader;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Hero Slack channel through Slack's Web API: {@code POST {api}/chat.postMessage} with the
 * bot token ({@code Authorization: Bearer xoxb-…}) and {@code {"channel", "text"}}, so the
 * channel each client's SOP names is the one posted to (an incoming webhook posts to the one
 * channel it was made for). The text is escaped as Slack's formatting asks. Slack answers
 * {@code 200} with {@code "ok": true} and the message's {@code ts} (the receipt), or {@code "ok": false}
 * and an {@code error}: the errors no retry can mend (a channel not found or archived, the bot
 * not in it, a revoked token) are permanent, the rest retried; {@code 429} waits out
 * {@code Retry-After}. Slack keeps no idempotency key: a lost answer is {@link SendResult.Unknown}.
 */
public final class SlackWebApi {

    /** Slack's errors that a second try cannot mend (chat.postMessage's documented errors). */
    static final Set<String> PERMANENT = Set.of("channel_not_found", "not_in_channel", "is_archived", "msg_too_long",
            "no_text", "invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired",
            "missing_scope", "restricted_action", "invalid_blocks", "invalid_arguments", "team_access_not_granted");

    private final URI postMessage;
    private final Map<String, String> headers;
    private final Duration timeout;
    private final ChannelTransport transport;
    private final Clock clock;

    /** @param api Slack's Web API base ({@code https://slack.com/api}) */
    public SlackWebApi(URI api, String botToken, Duration timeout, ChannelTransport transport, Clock clock) {
        if (botToken == null || botToken.isBlank()) {
            throw new IllegalArgumentException("loadflow.channels.slack.bot-token is needed for provider=slack-api (from the Secret)");
        }
        this.postMessage = URI.create(api.toString().replaceAll("/+$", "") + "/chat.postMessage");
        this.headers = Map.of("Authorization", "Bearer " + botToken, "Content-Type", "application/json; charset=utf-8");
        this.timeout = timeout;
        this.transport = transport;
        this.clock = clock;
    }

    public SendResult post(Action.PostHeroSlack post) {
        String json;
        try {
            // chat.postMessage's arguments as JSON: the channel and the escaped text
            json = JsonReader.MAPPER.writeValueAsString(ChannelBodies.SlackPost.of(post.channel(), post.text()));
        } catch (JsonProcessingException e) {
            return new SendResult.Permanent("body not serialisable: " + e.getOriginalMessage());
        }
        ChannelTransport.Answer answer;
        try {
            answer = transport.exchange(new ChannelTransport.Request("POST", postMessage, timeout, new LinkedHashMap<>(headers),
                    json));
        } catch (ChannelTransport.Unreachable e) {
            return e.mayHaveArrived()
                    ? new SendResult.Unknown("Slack's answer was lost: " + e.getMessage())
                    : new SendResult.Retryable("Slack not reached: " + e.getMessage(), Optional.empty());
        }
        if (answer.status() != 200) {
            return SendResult.of(answer.status(), answer.body(), answer.retryAfter(), clock);
        }
        JsonNode answered;
        try {
            answered = JsonReader.MAPPER.readTree(answer.body());
        } catch (Exception e) {
            // a 200 from a Web API that keeps no key: the post may well be in the channel
            return new SendResult.Unknown("Slack answered 200 without JSON: " + e.getMessage());
        }
        if (answered.path("ok").asBoolean(false)) {
            return new SendResult.Delivered(answered.path("channel").asText("") + "/" + answered.path("ts").asText(""));
        }
        String error = answered.path("error").asText("unknown_error");
        return PERMANENT.contains(error)
                ? new SendResult.Permanent("Slack " + error)
                : new SendResult.Retryable("Slack " + error, SendResult.retryAfter(answer.retryAfter(), clock), answer.status());
    }
}
