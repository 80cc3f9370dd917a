package dev.loadflow.store.outbox;

import java.time.Instant;

/**
 * Which parked rows to list or replay: every filter is optional ({@code null}); {@code since}
 * is inclusive, {@code until} exclusive (of the time a row died). Rows come newest dead first;
 * {@code offset} and {@code limit} page through them.
 */
public record DeadRowQuery(String loadId, String actionType, Instant since, Instant until, int offset, int limit) {

    public DeadRowQuery {
        if (offset < 0 || limit < 1) {
            throw new IllegalArgumentException("offset must be >= 0 and limit >= 1, got " + offset + ", " + limit);
        }
        if (since != null && until != null && !until.isAfter(since)) {
            throw new IllegalArgumentException("until must be after since, got " + since + " and " + until);
        }
    }

    /** Rows died at or after {@code since}, with no upper bound. */
    public DeadRowQuery(String loadId, String actionType, Instant since, int offset, int limit) {
        this(loadId, actionType, since, null, offset, limit);
    }

    public static DeadRowQuery all(int limit) {
        return new DeadRowQuery(null, null, null, null, 0, limit);
    }
}
