package dev.loadflow.dispatcher.send;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/** {@link ChannelsConfig} built by hand, for tests that make {@link ChannelClients} without Quarkus. */
public final class TestChannelsConfig {

    private TestChannelsConfig() {
    }

    /** {@code sms} as the SMS channel, {@code slack} as the Hero Slack one, Hero tasks unconfigured, on the Vert.x transport. */
    public static ChannelsConfig of(ChannelsConfig.SmsEndpoint sms, ChannelsConfig.SlackEndpoint slack) {
        Channel none = endpoint(Optional.empty(), "none", null, null);
        return new ChannelsConfig() {
            @Override
            public String transport() {
                return "vertx";
            }

            @Override
            public SmsEndpoint sms() {
                return sms;
            }

            @Override
            public Endpoint hero() {
                return none;
            }

            @Override
            public SlackEndpoint slack() {
                return slack;
            }

            @Override
            public StageWebhookCalls stageWebhooks() {
                throw new UnsupportedOperationException("not called by ChannelClients");
            }
        };
    }

    /** A channel of the channel protocol at {@code url}, authenticated by {@code auth}, that keeps the idempotency key. */
    public static Channel endpoint(Optional<URI> url, String auth, String secret, String header) {
        return new Channel(url, auth, secret, header, "generic", null, null, null, Duration.ofSeconds(5), null);
    }

    /** The SMS channel through Twilio's Messages API at {@code api}, sending from {@code from}. */
    public static Channel twilio(URI api, String accountSid, String authToken, String from, Duration timeout) {
        return twilio(api, accountSid, authToken, from, timeout, null);
    }

    /** As above, each message's status callback at {@code statusCallback} (null: none). */
    public static Channel twilio(URI api, String accountSid, String authToken, String from, Duration timeout,
                                 URI statusCallback) {
        ChannelsConfig.Twilio settings = new ChannelsConfig.Twilio() {
            @Override
            public Optional<String> accountSid() {
                return Optional.of(accountSid);
            }

            @Override
            public Optional<String> authToken() {
                return Optional.of(authToken);
            }

            @Override
            public Optional<String> from() {
                return Optional.of(from);
            }

            @Override
            public Optional<String> messagingServiceSid() {
                return Optional.empty();
            }

            @Override
            public Optional<URI> statusCallback() {
                return Optional.ofNullable(statusCallback);
            }

            @Override
            public URI apiUrl() {
                return api;
            }
        };
        return new Channel(Optional.empty(), "none", null, null, "twilio", settings, null, null, timeout, null);
    }

    /** The Hero Slack channel through Slack's Web API at {@code api}, with {@code botToken}; {@code webhooks} by channel name. */
    public static Channel slackApi(URI api, String botToken, Duration timeout, java.util.Map<String, URI> webhooks) {
        return new Channel(Optional.empty(), "none", null, null, "slack-api", null, botToken, api, timeout, webhooks);
    }

    /** One channel's settings, as an SMS or a Slack channel takes them (each reads the provider's own). */
    public record Channel(Optional<URI> url, String auth, String secret, String header, String provider,
                          ChannelsConfig.Twilio twilioSettings, String token, URI api, Duration timeout,
                          java.util.Map<String, URI> webhookUrls)
            implements ChannelsConfig.SmsEndpoint, ChannelsConfig.SlackEndpoint {

        @Override
        public ChannelsConfig.Twilio twilio() {
            if (twilioSettings == null) {
                throw new UnsupportedOperationException("no Twilio settings for provider " + provider);
            }
            return twilioSettings;
        }

        @Override
        public Optional<String> botToken() {
            return Optional.ofNullable(token);
        }

        @Override
        public java.util.Map<String, URI> webhooks() {
            return webhookUrls == null ? java.util.Map.of() : webhookUrls;
        }

        @Override
        public URI apiUrl() {
            return api;
        }

        @Override
        public boolean dedupes() {
            return "generic".equals(provider);
        }

        @Override
        public Optional<String> authSecret() {
            return Optional.ofNullable(secret);
        }

        @Override
        public Optional<String> authHeader() {
            return Optional.ofNullable(header);
        }

        @Override
        public int maxConcurrency() {
            return 4;
        }

        @Override
        public double rate() {
            return 0;
        }
    }
}
