package dev.loadflow.dispatcher.send;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.Set;

/**
 * What one attempt at an outbox row came to. The channel protocol (the dispatcher's README): 2xx = delivered (the body is the
 * receipt); 408, 425, 429, 5xx, timeouts and connection errors = retryable (honour
 * {@code Retry-After}); any other 4xx = permanent.
 */
public sealed interface SendResult {

    record Delivered(String receipt) implements SendResult {
    }

    /** @param status the provider's HTTP status, 0 when it gave none (a timeout, a lost connection, the database) */
    record Retryable(String reason, Optional<Duration> retryAfter, int status) implements SendResult {

        public Retryable(String reason, Optional<Duration> retryAfter) {
            this(reason, retryAfter, 0);
        }

        /**
         * Whether the request may have been carried out though it failed: a {@code 500}, or a
         * gateway's {@code 502} or {@code 504} (the service behind it may have taken it). A
         * {@code 503} or {@code 429} is a refusal before any work; a request never written is
         * {@link Retryable} with no status, one whose answer was lost {@link Unknown}.
         */
        public boolean mayHaveArrived() {
            return status == 500 || status == 502 || status == 504;
        }

        /** The provider said it is over its capacity (429, 503): send to it more slowly. */
        public boolean overloaded() {
            return status == 429 || status == 503;
        }
    }

    record Permanent(String reason) implements SendResult {
    }

    /**
     * The request may have reached a provider that keeps no idempotency key, and its answer was
     * lost (a timeout, a connection reset after the request was written): sent again, it could
     * arrive twice. The row is reconciled with the provider before its next attempt, or left to
     * an operator.
     */
    record Unknown(String reason) implements SendResult {
    }

    Set<Integer> RETRYABLE_4XX = Set.of(408, 425, 429);

    /** Classifies an HTTP answer. */
    static SendResult of(int status, String body, String retryAfterHeader, Clock clock) {
        String summary = status + (body == null || body.isBlank() ? "" : ": " + abbreviate(body));
        if (status >= 200 && status < 300) {
            return new Delivered(body == null ? "" : body);
        }
        if (status >= 500 || RETRYABLE_4XX.contains(status)) {
            return new Retryable(summary, retryAfter(retryAfterHeader, clock), status);
        }
        return new Permanent(summary);
    }

    /** {@code Retry-After} as delay-seconds or an HTTP date; empty when absent or unreadable. */
    static Optional<Duration> retryAfter(String header, Clock clock) {
        if (header == null || header.isBlank()) {
            return Optional.empty();
        }
        String value = header.trim();
        try {
            return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(value))));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                Duration delay = Duration.between(clock.instant(), at);
                return Optional.of(delay.isNegative() ? Duration.ZERO : delay);
            } catch (DateTimeParseException notADate) {
                return Optional.empty();
            }
        }
    }

    private static String abbreviate(String text) {
        String oneLine = text.replaceAll("\\s+", " ").trim();
        return oneLine.length() <= 300 ? oneLine : oneLine.substring(0, 300) + "…";
    }
}
