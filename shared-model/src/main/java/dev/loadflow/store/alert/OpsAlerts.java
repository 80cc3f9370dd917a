package dev.loadflow.store.alert;

import dev.loadflow.store.audit.AuditRecord;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The {@code ops_alert} table: raise is idempotent per outbox row, kind and death, so raising
 * twice for one death raises once, and a replayed row that dies again raises again.
 */
public interface OpsAlerts {

    /** Raises an alert; false if this row already raised one of this kind for its latest death. */
    boolean raise(String loadId, String outboxId, String actionType, String kind, String message, Instant now);

    /** Alerts raised at or after {@code since} (all when null), newest first. */
    List<OpsAlert> list(Instant since, int offset, int limit);

    /**
     * Marks an alert handled and records {@code audit} in the same transaction: retention may
     * delete it once its period has passed since. Returns the audit row's id; empty (and no
     * audit row) if there is no such alert or it was acknowledged already.
     */
    Optional<Long> acknowledge(long id, Instant now, AuditRecord audit);
}
