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
 * The external channels' senders and the one way they post: a record as JSON, with the row's
 * outbox id as {@code Idempotency-Key}, the answer classified as every channel's is. The built-in
 * senders ({@link SmsSender}, {@link HeroTaskSender}, {@link SlackSender}) send as the channel
 * protocol (the dispatcher's README) pins for their channel, or, where a provider is named, in
 * that provider's own API (Twilio's Messages API, {@link TwilioSms}; Slack's Web API,
 * {@link SlackWebApi}); a channel added to loadflow brings its own ({@link ChannelSender}).
 */
public final class ChannelClients {

    /** The channels loadflow carries itself. */
    private static final Set<dev.loadflow.model.action.Channel> BUILT_IN = Set.of(dev.loadflow.model.action.Channel.SMS,
            dev.loadflow.model.action.Channel.HERO, dev.loadflow.model.action.Channel.SLACK,
            dev.loadflow.model.action.Channel.INTERNAL, dev.loadflow.model.action.Channel.FANOUT);

    private final ChannelTransport transport;
    private final Clock clock;
    /** The senders of the external channels, built-in and added, by channel. */
    private final Map<dev.loadflow.model.action.Channel, ChannelSender<?>> senders;

    /**
     * A channel's request URL (made once, not per send), or why it has none, its timeout, its
     * authentication, and whether it keeps the idempotency key.
     */
    record Endpoint(Optional<URI> url, String unconfigured, Duration timeout, Map<String, String> headers,
                    boolean dedupes) {

        static Endpoint of(String name, ChannelsConfig.Endpoint endpoint, String path) {
            return new Endpoint(endpoint.url().map(base -> URI.create(stripSlash(base.toString()) + path)),
                    "loadflow.channels." + name + ".url is not configured", endpoint.timeout(),
                    ChannelAuth.headers(name, endpoint.auth(), endpoint.authSecret(), endpoint.authHeader()),
                    endpoint.dedupes());
        }
    }

    public ChannelClients(ChannelsConfig config, ChannelTransport transport, Clock clock) {
        this(config, transport, clock, List.of());
    }

    /** @param senders the senders of added channels, one per channel */
    public ChannelClients(ChannelsConfig config, ChannelTransport transport, Clock clock, List<? extends ChannelSender<?>> senders) {
        this(config, transport, clock, senders, TwilioSms.Ledger.NONE);
    }

    /** @param ledger where the messages of providers without idempotency keys are recorded as their rows' */
    public ChannelClients(ChannelsConfig config, ChannelTransport transport, Clock clock, List<? extends ChannelSender<?>> senders,
                          TwilioSms.Ledger ledger) {
        this.transport = transport;
        this.clock = clock;
        this.senders = new HashMap<>();
        for (ChannelSender<?> sender : builtIn(config, transport, clock, ledger)) {
            this.senders.put(sender.channel(), sender);
        }
        for (ChannelSender<?> sender : senders) {
            if (BUILT_IN.contains(sender.channel())) {
                throw new IllegalArgumentException(sender.getClass().getName() + " sends on built-in channel "
                        + sender.channel().wire() + ": a sender is for a channel added to loadflow");
            }
            if (this.senders.putIfAbsent(sender.channel(), sender) != null) {
                throw new IllegalArgumentException("two senders for channel " + sender.channel().wire());
            }
        }
    }

    /** The senders of the built-in external channels, as configured. */
    private static List<ChannelSender<?>> builtIn(ChannelsConfig config, ChannelTransport transport, Clock clock,
                                                  TwilioSms.Ledger ledger) {
        Optional<TwilioSms> twilio = switch (config.sms().provider()) {
            case "generic" -> Optional.empty();
            case "twilio" -> Optional.of(twilio(config.sms(), transport, clock, ledger));
            default -> throw new IllegalArgumentException("loadflow.channels.sms.provider is generic or twilio, got '"
                    + config.sms().provider() + "'");
        };
        Optional<SlackWebApi> slackApi = switch (config.slack().provider()) {
            case "generic" -> Optional.empty();
            case "slack-api" -> Optional.of(new SlackWebApi(config.slack().apiUrl(), config.slack().botToken().orElse(null),
                    config.slack().timeout(), transport, clock));
            default -> throw new IllegalArgumentException("loadflow.channels.slack.provider is generic or slack-api, got '"
                    + config.slack().provider() + "'");
        };
        Map<String, Endpoint> slackWebhooks = new HashMap<>();
        PerClientKeys.folded(config.slack().webhooks(), "loadflow.channels.slack.webhooks.<id>").forEach((name, url) ->
                slackWebhooks.put(name, new Endpoint(Optional.of(url), "", config.slack().timeout(), Map.of(), false)));
        return List.of(new SmsSender(Endpoint.of("sms", config.sms(), "/messages"), twilio),
                new HeroTaskSender(Endpoint.of("hero", config.hero(), "/tasks")),
                new SlackSender(Endpoint.of("slack", config.slack(), ""), slackApi, slackWebhooks));
    }

    private static TwilioSms twilio(ChannelsConfig.SmsEndpoint sms, ChannelTransport transport, Clock clock,
                                    TwilioSms.Ledger ledger) {
        ChannelsConfig.Twilio settings = sms.twilio();
        return new TwilioSms(new TwilioSms.Account(settings.apiUrl(), settings.accountSid().orElse(null),
                settings.authToken().orElse(null), settings.from(), settings.messagingServiceSid(),
                settings.statusCallback(), sms.timeout()), transport, clock, ledger);
    }

    /** The senders of the external channels this dispatcher carries, built-in and added, by channel. */
    public Map<dev.loadflow.model.action.Channel, ChannelSender<?>> senders() {
        return Map.copyOf(senders);
    }

    /**
     * Who can be asked what it has of a channel's row after an attempt whose answer was lost (a
     * provider that keeps no idempotency key): Twilio for SMS when SMS goes through it.
     */
    public Optional<Reconciler> reconciler(dev.loadflow.model.action.Channel channel) {
        return Optional.ofNullable(senders.get(channel)).flatMap(ChannelSender::reconciler);
    }

    /**
     * Whether a second request for a row of {@code channel} is safe after an attempt that may have
     * reached it: its sender's receiver dedupes on {@code Idempotency-Key}.
     */
    public boolean dedupes(dev.loadflow.model.action.Channel channel) {
        ChannelSender<?> sender = senders.get(channel);
        return sender == null || sender.dedupes();
    }

    /** Whether this dispatcher sends rows of {@code channel}: a built-in channel, or an added one with its sender here. */
    public boolean sends(dev.loadflow.model.action.Channel channel) {
        return BUILT_IN.contains(channel) || senders.containsKey(channel);
    }

    /** The channels added to loadflow that this dispatcher can send on. */
    public Set<dev.loadflow.model.action.Channel> added() {
        Set<dev.loadflow.model.action.Channel> added = new java.util.HashSet<>(senders.keySet());
        added.removeAll(BUILT_IN);
        return Set.copyOf(added);
    }

    /** The sender of a channel: its pace. */
    public Optional<ChannelSender<?>> sender(dev.loadflow.model.action.Channel channel) {
        return Optional.ofNullable(senders.get(channel));
    }

    /**
     * {@code action}, the action of {@code row}, sent by its channel's sender here (without the
     * dispatcher's guards: {@code Delivery} sends behind them); a channel with no sender here parks the row.
     */
    public SendResult send(OutboxRow row, Action action) {
        ChannelSender<?> sender = senders.get(action.type().channel());
        if (sender == null) {
            return new SendResult.Permanent("no ChannelSender for channel " + action.type().channel().wire() + " in this dispatcher");
        }
        return ChannelSender.sendAs(sender, row, action, this);
    }

    /** POSTs {@code body} to {@code endpoint} as its channel is configured; a channel with no URL parks the row. */
    SendResult send(Endpoint endpoint, String outboxId, Object body) {
        return endpoint.url().map(url -> post(url, endpoint.timeout(), outboxId, body, endpoint.headers(), endpoint.dedupes()))
                .orElseGet(() -> new SendResult.Permanent(endpoint.unconfigured()));
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
