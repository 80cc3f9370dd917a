package dev.loadflow.dispatcher.send;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Where the channel services are ({@code loadflow.channels.*}). Each request carries
 * {@code Idempotency-Key: {outboxId}} and the service dedupes on it.
 */
@ConfigMapping(prefix = "loadflow.channels")
public interface ChannelsConfig {

    /**
     * The HTTP client the channels are called with: {@code vertx} (Vert.x's HTTP client, the
     * least CPU per send), {@code rest-client} (Quarkus's REST client) or {@code jdk}
     * ({@code java.net.http}).
     */
    @WithDefault("vertx")
    String transport();

    /** The SMS service: {@code POST {url}/messages} (the channel protocol), or Twilio's Messages API. */
    SmsEndpoint sms();

    /** The Hero task service: {@code POST {url}/tasks}. */
    Endpoint hero();

    /** The Hero Slack channel: {@code POST {url}} (the channel protocol, or an incoming webhook), or Slack's Web API. */
    SlackEndpoint slack();

    /**
     * The clients' stage webhooks ({@code loadflow.sop.clients.<clientId>.stage-webhooks} on the
     * load worker): their URLs travel in each {@code stage_changed} row; here, how to call them.
     */
    @WithName("stage-webhooks")
    StageWebhookCalls stageWebhooks();

    /** How the clients' stage webhooks are called, and with which client's secret each is signed. */
    interface StageWebhookCalls extends Calls {

        /**
         * Per client id: the secret its stage webhooks are signed with, as the Standard Webhooks
         * specification has it ({@code webhook-id}, {@code webhook-timestamp}, {@code webhook-signature}).
         */
        Map<String, Client> clients();

        interface Client {
            /** {@code whsec_} and the base64 of the key (env {@code LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS_<ID>_SECRET}). */
            String secret();
        }
    }

    /** How one destination is called. */
    interface Calls {
        /** Connect and read timeout of one request: a few seconds, well inside the lease. */
        @WithDefault("PT5S")
        Duration timeout();

        /**
         * The ceiling of this channel's adaptive limit of requests in flight, per instance: the limit
         * grows toward it while the provider's latency holds and shrinks as latency rises or the
         * provider answers 429 or 503. A request in flight costs little (it waits on the event loop).
         */
        @WithDefault("256")
        int maxConcurrency();

        /**
         * Messages per second this instance may send to the channel; 0 for no limit. Set it from the
         * provider's published limit divided by the dispatcher's replicas.
         */
        @WithDefault("0")
        double rate();
    }

    /** The SMS channel: the channel protocol to an adapter ({@code generic}), or Twilio's own API. */
    interface SmsEndpoint extends Endpoint {

        /** {@code generic} (the channel protocol, {@code url}) or {@code twilio} (Twilio's Messages API). */
        @WithDefault("generic")
        String provider();

        Twilio twilio();
    }

    /** The Hero Slack channel: the channel protocol or an incoming webhook ({@code generic}), or Slack's Web API. */
    interface SlackEndpoint extends Endpoint {

        /**
         * {@code generic} ({@code POST {url}}: an adapter, or a Slack incoming webhook, which posts to
         * the one channel it was made for: set {@code dedupes=false}) or {@code slack-api}
         * ({@code chat.postMessage} with a bot token: each client's channel honoured).
         */
        @WithDefault("generic")
        String provider();

        /** The bot's token ({@code xoxb-…}) for {@code provider=slack-api}: in the Secret (env {@code LOADFLOW_CHANNELS_SLACK_BOT_TOKEN}). */
        Optional<String> botToken();

        /** Slack's Web API; a test points it at a stand-in. */
        @WithDefault("https://slack.com/api")
        URI apiUrl();

        /**
         * Per Slack channel (its name without {@code #}, e.g. {@code hero-client-b}): an incoming
         * webhook made for it, which its posts go to instead (a client's workspace where the bot is
         * not installed). An incoming webhook keeps no idempotency key: a lost answer is left to an
         * operator. Keep the URLs in the Secret: they are credentials.
         */
        Map<String, URI> webhooks();
    }

    /** Twilio's Messages API ({@code loadflow.channels.sms.provider=twilio}). */
    interface Twilio {
        /** The account: {@code AC} and 32 hex digits. */
        Optional<String> accountSid();

        /** The account's auth token: keep it in the Secret (env {@code LOADFLOW_CHANNELS_SMS_TWILIO_AUTH_TOKEN}). */
        Optional<String> authToken();

        /** The sender number (E.164); or set {@link #messagingServiceSid} instead. */
        Optional<String> from();

        /** A Messaging Service ({@code MG…}) that picks the sender; or set {@link #from} instead. */
        Optional<String> messagingServiceSid();

        /** Where Twilio posts the message's status changes, when set ({@code StatusCallback}). */
        Optional<URI> statusCallback();

        /** Twilio's API; a test points it at a stand-in. */
        @WithDefault("https://api.twilio.com")
        URI apiUrl();
    }

    interface Endpoint extends Calls {
        /** Base URL; a row for a channel without one is parked (a configuration error, replayable). */
        Optional<URI> url();

        /**
         * How loadflow authenticates to the channel: {@code none}, {@code bearer}
         * ({@code Authorization: Bearer <secret>}), {@code basic} ({@code Authorization: Basic}, the
         * secret {@code user:password}) or {@code header} (the secret in the header {@link #authHeader}).
         */
        @WithDefault("none")
        String auth();

        /** The credential {@link #auth} sends; keep it in the Secret (env {@code LOADFLOW_CHANNELS_<C>_AUTH_SECRET}). */
        Optional<String> authSecret();

        /** The header's name for {@code auth=header}, e.g. {@code X-Api-Key}. */
        Optional<String> authHeader();

        /**
         * Whether the channel keeps the {@code Idempotency-Key}: a request sent twice is acted on
         * once, so a send whose answer was lost is simply sent again. The channel protocol asks for
         * it; an adapter that cannot keep it says {@code false}, and a send whose answer was lost is
         * then parked as {@code ambiguous} for an operator instead of being sent again.
         */
        @WithDefault("true")
        boolean dedupes();
    }
}
