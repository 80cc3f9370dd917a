package dev.loadflow.worker.twilio;

import io.smallrye.config.ConfigMapping;

import io.smallrye.config.WithDefault;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Inbound SMS from Twilio ({@code loadflow.sources.twilio.*}): off until both are set. */
@ConfigMapping(prefix = "loadflow.sources.twilio")
public interface TwilioSourceConfig {

    /** The account's auth token, which signs Twilio's webhooks: in the Secret (env {@code LOADFLOW_SOURCES_TWILIO_AUTH_TOKEN}). */
    Optional<String> authToken();

    /**
     * The URL Twilio posts to, exactly as set on the number or Messaging Service (the public one,
     * through the ingress): Twilio signs that URL, not the address the pod sees.
     */
    Optional<URI> webhookUrl();

    /**
     * The public URL of {@code POST /sources/twilio/status} as Twilio calls it, without the query
     * the dispatcher adds per message (its {@code loadflow.channels.sms.twilio.status-callback}):
     * Twilio signs that URL. Unset, the webhook URL with its last segment {@code status}.
     */
    Optional<URI> statusUrl();

    /**
     * Each client's own senders, by client id: the Twilio numbers (E.164) and Messaging Service
     * SIDs ({@code MG…}) that write to its drivers. A driver's reply to one of them goes to that
     * client's load; a sender no client names tells nothing.
     */
    Map<String, List<String>> senders();

    /** How far SMS from numbers no load is assigned to are taken. */
    Strangers strangers();

    /** The limits on SMS from numbers no load has: past them an SMS is refused (answered, counted, not kept). */
    interface Strangers {

        /** SMS one such number may have kept a day (UTC). */
        @WithDefault("20")
        int perNumberPerDay();

        /** SMS from all such numbers one worker keeps an hour. */
        @WithDefault("200")
        int perHour();
    }

    /** {@link #statusUrl()}, or the webhook URL's sibling {@code status}. */
    default Optional<URI> statusUrlOrSibling() {
        return statusUrl().or(() -> webhookUrl().map(url -> url.resolve("status")));
    }
}
