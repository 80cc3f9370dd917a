package dev.loadflow.store.sop;

import dev.loadflow.model.policy.SopRules;
import dev.loadflow.store.audit.AuditRecord;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The clients' SOPs as numbered versions. A client's newest version is its SOP; a client with
 * none follows the default rules. Versions are only ever added, each with the audit row of the
 * change in the same transaction.
 */
public interface SopVersions {

    /**
     * Adds {@code clientId}'s next version (1 for its first) with {@code rules}, made by the audit's
     * principal at {@code at} for {@code reason}, and the audit row of the change.
     *
     * @return the version and the id of its audit row
     * @throws SopChangedMeanwhileException another change took that version number first
     */
    Added add(String clientId, SopRules rules, String reason, AuditRecord audit, Instant at);

    /**
     * Adds each client's next version, all of them or none, each with its audit row: an import of
     * many clients' SOPs.
     *
     * @throws SopChangedMeanwhileException another change took one of those version numbers first (none is added)
     */
    List<Added> addAll(List<Change> changes, Instant at);

    /** One client's new rules, why, and the audit row of the change. */
    record Change(String clientId, SopRules rules, String reason, AuditRecord audit) {
    }

    /** A version added, and the audit row written with it. */
    record Added(SopVersion version, long auditId) {
    }

    /** The client's newest version, if it has one. */
    Optional<SopVersion> current(String clientId);

    /** Every version of the client's, newest first. */
    List<SopVersion> history(String clientId);

    /** Every client's newest version, by client id. */
    List<SopVersion> currents();
}
