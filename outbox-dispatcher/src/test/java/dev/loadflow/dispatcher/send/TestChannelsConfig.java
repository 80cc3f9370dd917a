package dev.loadflow.dispatcher.send;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/** {@link ChannelsConfig} built by hand, for tests that make {@link ChannelClients} without Quarkus. */
public final class TestChannelsConfig {

    private TestChannelsConfig() {
    }

    /** {@code sms} as the SMS channel, {@code others} as Hero and Slack, on the Vert.x transport. */
    public static ChannelsConfig of(ChannelsConfig.SmsEndpoint sms, ChannelsConfig.Endpoint others) {
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
                return others;
            }

            @Override
            public Endpoint slack() {
                return others;
            }

            @Override
            public StageWebhookCalls stageWebhooks() {
                throw new UnsupportedOperationException("not called by ChannelClients");
            }
        };
    }

    /** A channel of the channel protocol at {@code url}, authenticated by {@code auth}, that keeps the idempotency key. */
    public static ChannelsConfig.SmsEndpoint endpoint(Optional<URI> url, String auth, String secret, String header) {
        return endpoint(url, auth, secret, header, "generic", null, Duration.ofSeconds(5));
    }

    /** The SMS channel through Twilio's Messages API at {@code api}, sending from {@code from}. */
    public static ChannelsConfig.SmsEndpoint twilio(URI api, String accountSid, String authToken, String from, Duration timeout) {
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
                return Optional.empty();
            }

            @Override
            public URI apiUrl() {
                return api;
            }
        };
        return endpoint(Optional.empty(), "none", null, null, "twilio", settings, timeout);
    }

    private static ChannelsConfig.SmsEndpoint endpoint(Optional<URI> url, String auth, String secret, String header,
                                                       String provider, ChannelsConfig.Twilio twilio, Duration timeout) {
        return new ChannelsConfig.SmsEndpoint() {
            @Override
            public String provider() {
                return provider;
            }

            @Override
            public ChannelsConfig.Twilio twilio() {
                if (twilio == null) {
                    throw new UnsupportedOperationException("the generic provider has no Twilio settings");
                }
                return twilio;
            }

            @Override
            public boolean dedupes() {
                return !"twilio".equals(provider);
            }

            @Override
            public Optional<URI> url() {
                return url;
            }

            @Override
            public String auth() {
                return auth;
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
            public Duration timeout() {
                return timeout;
            }

            @Override
            public int maxConcurrency() {
                return 4;
            }

            @Override
            public double rate() {
                return 0;
            }
        };
    }
}
