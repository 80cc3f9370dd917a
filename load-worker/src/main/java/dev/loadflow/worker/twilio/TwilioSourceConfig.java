package dev.loadflow.worker.twilio;

import io.smallrye.config.ConfigMapping;

import java.net.URI;
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

    /** {@link #statusUrl()}, or the webhook URL's sibling {@code status}. */
    default Optional<URI> statusUrlOrSibling() {
        return statusUrl().or(() -> webhookUrl().map(url -> url.resolve("status")));
    }
}
