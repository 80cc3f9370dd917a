package dev.loadflow.dispatcher.send;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * Where the channel services are ({@code loadflow.channels.*}). Each request carries
 * {@code Idempotency-Key: {outboxId}} and the service dedupes on it.
 */
@ConfigMapping(prefix = "loadflow.channels")
public interface ChannelsConfig {

    /** The SMS service: {@code POST {url}/messages}. */
    Endpoint sms();

    /** The Hero task service: {@code POST {url}/tasks}. */
    Endpoint hero();

    /** The Hero Slack webhook: {@code POST {url}}. */
    Endpoint slack();

    interface Endpoint {
        /** Base URL; a row for a channel without one is parked (a configuration error, replayable). */
        Optional<URI> url();

        /** Connect and read timeout of one request: a few seconds, well inside the lease. */
        @WithDefault("PT5S")
        Duration timeout();

        /** Requests in flight to this channel at once, per instance. */
        @WithDefault("16")
        int maxConcurrency();
    }
}
