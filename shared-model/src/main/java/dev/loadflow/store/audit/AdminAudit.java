package dev.loadflow.store.audit;

import java.time.Instant;
import java.util.List;

/**
 * The {@code admin_audit} trail. The stores whose changes operators make write their rows in
 * the change's own transaction (a replay, a re-drive); {@link #record} is for a change made
 * outside the database (a re-drive on SQS), written right after it.
 */
public interface AdminAudit {

    /** Writes one row; returns its id. */
    long record(AuditRecord audit, String resultJson, Instant at);

    /** Rows matching {@code query}, newest first. */
    List<AuditEntry> list(AuditQuery query);
}
