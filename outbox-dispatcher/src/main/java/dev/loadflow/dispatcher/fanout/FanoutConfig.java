package dev.loadflow.dispatcher.fanout;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Subscribers of fan-out events ({@code loadflow.fanout.subscribers.<name>.*}), e.g. a
 * customer's webhook for stage changes. The name is the handler name in {@code processed_event}.
 */
@ConfigMapping(prefix = "loadflow.fanout")
public interface FanoutConfig {

    Map<String, Subscriber> subscribers();

    interface Subscriber {
        /** The webhook: {@code POST {url}} with the event's payload and {@code Idempotency-Key: {outboxId}}. */
        URI url();

        /** The event types (outbox {@code action_type} of fan-out rows) it receives. */
        List<String> events();

        /** Connect and read timeout. */
        @WithDefault("PT5S")
        Duration timeout();
    }
}
