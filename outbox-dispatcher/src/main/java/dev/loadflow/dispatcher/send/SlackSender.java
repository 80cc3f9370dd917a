package dev.loadflow.dispatcher.send;

import dev.loadflow.dispatcher.provider.SlackWebApi;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.store.outbox.OutboxRow;

import java.util.Map;
import java.util.Optional;

/**
 * The Hero desk's Slack: a channel's own incoming webhook where one is configured, else Slack's
 * Web API where it is the provider, else {@code POST {slack.url} {"channel", "text"}}.
 */
final class SlackSender implements ChannelSender<Action.PostHeroSlack> {

    private final ChannelClients.Endpoint endpoint;
    private final Optional<SlackWebApi> api;
    /** Slack channels (names without {@code #}, folded) posted to through an incoming webhook of their own. */
    private final Map<String, ChannelClients.Endpoint> webhooks;

    SlackSender(ChannelClients.Endpoint endpoint, Optional<SlackWebApi> api, Map<String, ChannelClients.Endpoint> webhooks) {
        this.endpoint = endpoint;
        this.api = api;
        this.webhooks = Map.copyOf(webhooks);
    }

    @Override
    public Channel channel() {
        return Channel.SLACK;
    }

    @Override
    public Class<Action.PostHeroSlack> actionType() {
        return Action.PostHeroSlack.class;
    }

    @Override
    public SendResult send(OutboxRow row, Action.PostHeroSlack post, ChannelClients http) {
        ChannelClients.Endpoint webhook = webhooks.get(PerClientKeys.fold(post.channel().startsWith("#")
                ? post.channel().substring(1) : post.channel()));
        if (webhook != null) {
            // an incoming webhook posts to the channel it was made for: only the text is sent
            return http.send(webhook, row.outboxId(), new ChannelBodies.SlackWebhookPost(ChannelBodies.SlackPost.escaped(post.text())));
        }
        return api.map(slack -> slack.post(post))
                .orElseGet(() -> http.send(endpoint, row.outboxId(), ChannelBodies.SlackPost.of(post.channel(), post.text())));
    }

    /** Slack's Web API and its incoming webhooks keep no idempotency key; a generic endpoint as configured. */
    @Override
    public boolean dedupes() {
        return api.isEmpty() && webhooks.isEmpty() && endpoint.dedupes();
    }
}
