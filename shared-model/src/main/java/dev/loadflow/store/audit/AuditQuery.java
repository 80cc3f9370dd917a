package dev.loadflow.store.audit;

import java.time.Instant;

/** Which audit rows to list, newest first: from {@code since} (inclusive), by {@code principal}; both optional. */
public record AuditQuery(Instant since, String principal, int offset, int limit) {

    public AuditQuery {
        if (offset < 0 || limit < 1) {
            throw new IllegalArgumentException("offset >= 0 and limit >= 1, got " + offset + " and " + limit);
        }
    }
}
