package dev.loadflow.dispatcher.send;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.loadflow.dispatcher.provider.SlackWebApi;
import dev.loadflow.dispatcher.provider.TwilioSms;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.service.trace.Traces;
import dev.loadflow.store.outbox.OutboxRow;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The external channels: sends an action as the request the channel protocol (the dispatcher's README) pins for its channel, with
 * the row's outbox id as {@code Idempotency-Key}, and classifies the answer.
 * <ul>
 *   <li>SMS: {@code POST {sms.url}/messages {"to", "text"}}</li>
 *   <li>Hero tasks: {@code POST {hero.url}/tasks {"loadId", "title", "urgency", "body"}}</li>
 *   <li>Hero Slack: {@code POST {slack.url} {"channel", "text"}}</li>
 * </ul>
 * or, where a provider is named, in that provider's own API: SMS through Twilio's Messages API
 * ({@link TwilioSms}), Hero Slack through Slack's Web API ({@link SlackWebApi}).
 */
public final class ChannelClients {

    /** The channels loadflow carries itself. */
    private static final Set<dev.loadflow.model.action.Channel> BUILT_IN = Set.of(dev.loadflow.model.action.Channel.SMS,
            dev.loadflow.model.action.Channel.HERO, dev.loadflow.model.action.Channel.SLACK,
            dev.loadflow.model.action.Channel.INTERNAL, dev.loadflow.model.action.Channel.FANOUT);

    private final ChannelTransport transport;
    private final Clock clock;
    private final Channel sms;
    private final Channel hero;
    private final Channel slack;
    private final Optional<TwilioSms> twilio;
    private final Optional<SlackWebApi> slackApi;
    /** Slack channels (names without {@code #}) posted to through an incoming webhook of their own. */
    private final Map<String, Channel> slackWebhooks;
    /** The senders of the channels added to loadflow, by channel. */
    private final Map<dev.loadflow.model.action.Channel, ChannelSender> senders;

    /**
     * A channel's request URL (made once, not per send), or why it has none, its timeout, its
     * authentication, and whether it keeps the idempotency key.
     */
    private record Channel(Optional<URI> url, String unconfigured, Duration timeout, Map<String, String> headers,
                           boolean dedupes) {

        static Channel of(String name, ChannelsConfig.Endpoint endpoint, String path) {
            return new Channel(endpoint.url().map(base -> URI.create(stripSlash(base.toString()) + path)),
                    "loadflow.channels." + name + ".url is not configured", endpoint.timeout(),
                    ChannelAuth.headers(name, endpoint.auth(), endpoint.authSecret(), endpoint.authHeader()),
                    endpoint.dedupes());
        }
    }

    public ChannelClients(ChannelsConfig config, ChannelTransport transport, Clock clock) {
        this(config, transport, clock, List.of());
    }

    /** @param senders the senders of added channels, one per channel */
    public ChannelClients(ChannelsConfig config, ChannelTransport transport, Clock clock, List<ChannelSender> senders) {
        this(config, transport, clock, senders, TwilioSms.Ledger.NONE);
    }

    /** @param ledger where the messages of providers without idempotency keys are recorded as their rows' */
    public ChannelClients(ChannelsConfig config, ChannelTransport transport, Clock clock, List<ChannelSender> senders,
                          TwilioSms.Ledger ledger) {
        this.senders = new HashMap<>();
        for (ChannelSender sender : senders) {
            if (BUILT_IN.contains(sender.channel())) {
                throw new IllegalArgumentException(sender.getClass().getName() + " sends on built-in channel "
                        + sender.channel().wire() + ": a sender is for a channel added to loadflow");
            }
            if (this.senders.putIfAbsent(sender.channel(), sender) != null) {
                throw new IllegalArgumentException("two senders for channel " + sender.channel().wire());
            }
        }
        this.transport = transport;
        this.clock = clock;
        this.sms = Channel.of("sms", config.sms(), "/messages");
        this.hero = Channel.of("hero", config.hero(), "/tasks");
        this.slack = Channel.of("slack", config.slack(), "");
        this.twilio = switch (config.sms().provider()) {
            case "generic" -> Optional.empty();
            case "twilio" -> Optional.of(twilio(config.sms(), transport, clock, ledger));
            default -> throw new IllegalArgumentException("loadflow.channels.sms.provider is generic or twilio, got '"
                    + config.sms().provider() + "'");
        };
        this.slackApi = switch (config.slack().provider()) {
            case "generic" -> Optional.empty();
            case "slack-api" -> Optional.of(new SlackWebApi(config.slack().apiUrl(), config.slack().botToken().orElse(null),
                    config.slack().timeout(), transport, clock));
            default -> throw new IllegalArgumentException("loadflow.channels.slack.provider is generic or slack-api, got '"
                    + config.slack().provider() + "'");
        };
        this.slackWebhooks = new java.util.HashMap<>();
        PerClientKeys.folded(config.slack().webhooks(), "loadflow.channels.slack.webhooks.<id>").forEach((name, url) ->
                slackWebhooks.put(name, new Channel(Optional.of(url), "", config.slack().timeout(), Map.of(), false)));
    }

    private static TwilioSms twilio(ChannelsConfig.SmsEndpoint sms, ChannelTransport transport, Clock clock,
                                    TwilioSms.Ledger ledger) {
        ChannelsConfig.Twilio settings = sms.twilio();
        return new TwilioSms(new TwilioSms.Account(settings.apiUrl(), settings.accountSid().orElse(null),
                settings.authToken().orElse(null), settings.from(), settings.messagingServiceSid(),
                settings.statusCallback(), sms.timeout()), transport, clock, ledger);
    }

    /**
     * Who can be asked what it has of a channel's row after an attempt whose answer was lost (a
     * provider that keeps no idempotency key): Twilio for SMS when SMS goes through it.
     */
    public Optional<Reconciler> reconciler(dev.loadflow.model.action.Channel channel) {
        return channel == dev.loadflow.model.action.Channel.SMS ? twilio.map(Reconciler.class::cast) : Optional.empty();
    }

    /**
     * Whether a second request for a row of {@code channel} is safe after an attempt that may have
     * reached it: the service dedupes on {@code Idempotency-Key} (the webhooks' receivers on
     * {@code webhook-id}). Not for Twilio, Slack's Web API or its incoming webhooks, or a generic
     * endpoint configured with {@code dedupes=false}.
     */
    public boolean dedupes(dev.loadflow.model.action.Channel channel) {
        if (channel == dev.loadflow.model.action.Channel.SMS) {
            return twilio.isEmpty() && sms.dedupes();
        }
        if (channel == dev.loadflow.model.action.Channel.HERO) {
            return hero.dedupes();
        }
        if (channel == dev.loadflow.model.action.Channel.SLACK) {
            return slackApi.isEmpty() && slackWebhooks.isEmpty() && slack.dedupes();
        }
        ChannelSender sender = senders.get(channel);
        return sender == null || sender.dedupes();
    }

    /** Whether this dispatcher sends rows of {@code channel}: a built-in channel, or an added one with its sender here. */
    public boolean sends(dev.loadflow.model.action.Channel channel) {
        return BUILT_IN.contains(channel) || senders.containsKey(channel);
    }

    /** The channels added to loadflow that this dispatcher can send on. */
    public Set<dev.loadflow.model.action.Channel> added() {
        return Set.copyOf(senders.keySet());
    }

    /** The sender of an added channel: its pace. */
    public Optional<ChannelSender> sender(dev.loadflow.model.action.Channel channel) {
        return Optional.ofNullable(senders.get(channel));
    }

    /** Sends an action of an added channel through its sender; with none, the row is parked with the reason. */
    public SendResult extension(OutboxRow row, Action.Extension action) {
        ChannelSender sender = senders.get(action.type().channel());
        if (sender == null) {
            return new SendResult.Permanent("no ChannelSender for channel " + action.type().channel().wire()
                    + " in this dispatcher");
        }
        return sender.send(row, action, this);
    }

    public SendResult sms(String outboxId, Action.SendSms message) {
        if (twilio.isPresent()) {
            return twilio.get().send(outboxId, message);
        }
        return send(sms, outboxId, new ChannelBodies.Sms(message.to(), message.text()));
    }

    public SendResult heroTask(String outboxId, String loadId, Action.CreateHeroTask task) {
        return send(hero, outboxId, new ChannelBodies.HeroTask(loadId, task.title(), task.urgency().wire(), task.body()));
    }

    public SendResult slack(String outboxId, Action.PostHeroSlack post) {
        Channel webhook = slackWebhooks.get(PerClientKeys.fold(post.channel().startsWith("#") ? post.channel().substring(1)
                : post.channel()));
        if (webhook != null) {
            // an incoming webhook posts to the channel it was made for: only the text is sent
            return send(webhook, outboxId, Map.of("text", ChannelBodies.SlackPost.escaped(post.text())));
        }
        if (slackApi.isPresent()) {
            return slackApi.get().post(post);
        }
        return send(slack, outboxId, ChannelBodies.SlackPost.of(post.channel(), post.text()));
    }

    private SendResult send(Channel channel, String outboxId, Object body) {
        return channel.url().map(url -> post(url, channel.timeout(), outboxId, body, channel.headers(), channel.dedupes()))
                .orElseGet(() -> new SendResult.Permanent(channel.unconfigured()));
    }

    /** POSTs {@code body} as JSON to {@code url} with the idempotency key and classifies the answer. */
    public SendResult post(URI url, Duration timeout, String idempotencyKey, Object body) {
        return post(url, timeout, idempotencyKey, body, Map.of(), true);
    }

    private SendResult post(URI url, Duration timeout, String idempotencyKey, Object body, Map<String, String> headers,
                            boolean dedupes) {
        String json;
        try {
            json = JsonReader.MAPPER.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            return new SendResult.Permanent("body not serialisable: " + e.getOriginalMessage());
        }
        return post(url, timeout, idempotencyKey, json, headers, dedupes);
    }

    /**
     * POSTs {@code json} as it is to {@code url} with the idempotency key and {@code headers}, and
     * classifies the answer, to a destination that keeps the key (a lost answer is retryable).
     */
    public SendResult post(URI url, Duration timeout, String idempotencyKey, String json, Map<String, String> headers) {
        return post(url, timeout, idempotencyKey, json, headers, true);
    }

    /** As above; where the destination keeps no key, a lost answer to a request that was written is {@link SendResult.Unknown}. */
    private SendResult post(URI url, Duration timeout, String idempotencyKey, String json, Map<String, String> headers,
                            boolean dedupes) {
        try {
            // the send's span is current here (RowDispatcher): the channel sees its trace
            ChannelTransport.Answer answer = transport.post(url, timeout, idempotencyKey, Traces.current(), json, headers);
            return SendResult.of(answer.status(), answer.body(), answer.retryAfter(), clock);
        } catch (ChannelTransport.Unreachable e) {
            String reason = "no answer from " + url + ": " + e.getMessage();
            return !dedupes && e.mayHaveArrived() ? new SendResult.Unknown(reason) : new SendResult.Retryable(reason, Optional.empty());
        }
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
