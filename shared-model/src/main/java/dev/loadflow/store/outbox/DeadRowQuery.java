package dev.loadflow.store.outbox;

import java.time.Instant;

/**
 * Which parked rows to list or replay: every filter is optional ({@code null}). Rows come
 * newest dead first; {@code offset} and {@code limit} page through them.
 */
public record DeadRowQuery(String loadId, String actionType, Instant since, int offset, int limit) {

    public DeadRowQuery {
        if (offset < 0 || limit < 1) {
            throw new IllegalArgumentException("offset must be >= 0 and limit >= 1, got " + offset + ", " + limit);
        }
    }

    public static DeadRowQuery all(int limit) {
        return new DeadRowQuery(null, null, null, 0, limit);
    }
}
