package dev.loadflow.store.audit;

import java.time.Instant;

/** One recorded admin change; {@code params} and {@code result} are JSON objects. */
public record AuditEntry(long id, Instant at, String principal, String service, String action, String target,
                         String params, String result) {
}
