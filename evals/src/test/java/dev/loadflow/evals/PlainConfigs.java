package dev.loadflow.evals;

import dev.loadflow.dispatcher.DispatcherConfig;
import dev.loadflow.dispatcher.send.ChannelsConfig;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The dispatcher's configuration as plain objects, pointing at a channel simulator. */
final class PlainConfigs {

    private PlainConfigs() {
    }

    static ChannelsConfig channels(URI base) {
        return channels(base, true);
    }

    /** @param smsDedupes whether the SMS endpoint keeps the idempotency key (false: a provider that keeps none) */
    static ChannelsConfig channels(URI base, boolean smsDedupes) {
        return new ChannelsConfig() {
            @Override
            public String transport() {
                return "jdk";
            }

            @Override
            public SmsEndpoint sms() {
                return new Generic(URI.create(base + "/sms"), smsDedupes);
            }

            @Override
            public Endpoint hero() {
                return endpoint(base + "/hero");
            }

            @Override
            public SlackEndpoint slack() {
                return endpoint(base + "/slack");
            }

            @Override
            public StageWebhookCalls stageWebhooks() {
                Endpoint calls = endpoint(base + "/webhooks");
                return new StageWebhookCalls() {
                    @Override
                    public Map<String, Client> clients() {
                        return Map.of();
                    }

                    @Override
                    public Duration timeout() {
                        return calls.timeout();
                    }

                    @Override
                    public int maxConcurrency() {
                        return calls.maxConcurrency();
                    }

                    @Override
                    public double rate() {
                        return calls.rate();
                    }
                };
            }
        };
    }

    /** A channel of the channel protocol at {@code url} (an SMS or Slack channel's settings too: the generic provider). */
    static Generic endpoint(String url) {
        return new Generic(URI.create(url));
    }

    /** A channel of the channel protocol, as any channel takes its settings. */
    record Generic(URI base, boolean dedupes) implements ChannelsConfig.SmsEndpoint, ChannelsConfig.SlackEndpoint {

        Generic(URI base) {
            this(base, true);
        }

        @Override
        public String provider() {
            return "generic";
        }

        @Override
        public ChannelsConfig.Twilio twilio() {
            throw new UnsupportedOperationException("the generic provider has no Twilio settings");
        }

        @Override
        public Optional<String> botToken() {
            return Optional.empty();
        }

        @Override
        public URI apiUrl() {
            throw new UnsupportedOperationException("the generic provider has no Slack API");
        }

        @Override
        public java.util.Map<String, URI> webhooks() {
            return java.util.Map.of();
        }

        @Override
        public Optional<URI> url() {
            return Optional.of(base);
        }

        @Override
        public Duration timeout() {
            return Duration.ofSeconds(10);
        }

        @Override
        public int maxConcurrency() {
            return 256;
        }

        @Override
        public double rate() {
            return 0;
        }

        @Override
        public String auth() {
            return "none";
        }

        @Override
        public Optional<String> authSecret() {
            return Optional.empty();
        }

        @Override
        public Optional<String> authHeader() {
            return Optional.empty();
        }
    }

    static DispatcherConfig.Circuit circuit(int minimumCalls) {
        return DispatcherConfig.Circuit.of(50, minimumCalls, minimumCalls, Duration.ofSeconds(30));
    }

}
