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

    /**
     * A request in a provider's own shape (a form-encoded POST, a GET): {@code headers} carry its
     * content type and authentication, {@code body} is null for none.
     */
    record Request(String method, URI url, Duration timeout, Map<String, String> headers, String body) {
    }

    /**
     * Sends {@code request} as it is; throws {@link Unreachable} on a timeout or a connection
     * error, never for an HTTP status. The transports a provider's channel needs (Vert.x, the
     * JDK's) have it; the REST client's sends JSON only.
     */
    default Answer exchange(Request request) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " sends JSON posts only: "
                + "a provider's channel needs loadflow.channels.transport=vertx (the default) or jdk");
    }

    /**
     * No answer: a timeout or a connection error. {@code mayHaveArrived}: the request was written
     * (or it cannot be told), so the provider may have acted on it though its answer was lost; a
     * connection never made says no.
     */
    final class Unreachable extends RuntimeException {

        private final boolean mayHaveArrived;

        public Unreachable(String message, Throwable cause) {
            this(message, cause, true);
        }

        public Unreachable(String message, Throwable cause, boolean mayHaveArrived) {
            super(message, cause);
            this.mayHaveArrived = mayHaveArrived;
        }

        public boolean mayHaveArrived() {
            return mayHaveArrived;
        }
    }
}
