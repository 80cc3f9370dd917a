package dev.loadflow.dispatcher.send;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * How a JSON POST with an idempotency key reaches a channel: Vert.x's HTTP client by default
 * ({@link VertxHttpTransport}), or Quarkus's REST client ({@link RestClientTransport}) or the
 * JDK's ({@link JdkHttpTransport}) by {@code loadflow.channels.transport}. Requests and
 * classification are {@link ChannelClients}' alone.
 */
public interface ChannelTransport {

    /** The channel's answer. */
    record Answer(int status, String body, String retryAfter) {
    }

    /**
     * POSTs {@code json} to {@code url} with the idempotency key and, when not null, the W3C
     * {@code traceparent} of the send; throws {@link Unreachable} on a timeout or a connection
     * error (retryable), never for an HTTP status.
     */
    default Answer post(URI url, Duration timeout, String idempotencyKey, String traceparent, String json) {
        return post(url, timeout, idempotencyKey, traceparent, json, Map.of());
    }

    /** As {@link #post(URI, Duration, String, String, String)}, with {@code headers} besides (a signature's). */
    Answer post(URI url, Duration timeout, String idempotencyKey, String traceparent, String json, Map<String, String> headers);

    /** No answer: a timeout or a connection error. */
    final class Unreachable extends RuntimeException {
        public Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
