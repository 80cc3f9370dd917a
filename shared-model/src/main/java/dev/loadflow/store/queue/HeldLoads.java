package dev.loadflow.store.queue;

import dev.loadflow.model.event.MessageSkipped;
import dev.loadflow.store.audit.AuditRecord;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The loads held at a poison head message, kept in the database next to the log whichever
 * queue carries the messages (the queue keeps the message; this says why it waits and what
 * an operator asked for). At most one hold per load: its head.
 */
public interface HeldLoads {

    /**
     * Holds {@code held.loadId()} at {@code held.messageId()}; if the load is held at that
     * message already (a retry failed again), its state goes back to HELD with the new reason and
     * its {@code since} stays.
     */
    void hold(HeldLoad held);

    /** The holds of those of {@code loadIds} that are held, by load id. */
    Map<String, HeldLoad> among(Collection<String> loadIds);

    /** The hold of {@code loadId}, if it is held. */
    default Optional<HeldLoad> of(String loadId) {
        return Optional.ofNullable(among(List.of(loadId)).get(loadId));
    }

    /** How many loads are held (not counting those being skipped). */
    int count();

    /** Held loads, longest held first. */
    default List<HeldLoad> list(int limit) {
        return list(Filter.ALL, limit);
    }

    /** The held loads {@code filter} matches, longest held first. */
    List<HeldLoad> list(Filter filter, int limit);

    /** How many loads {@code filter} matches that an operator may still repair (not being skipped). */
    int count(Filter filter);

    /** Remembers the head's latest delivery, so a retry or a skip can make it visible at once. */
    void handedBack(String loadId, String messageId, String receiptHandle);

    /**
     * Asks for one more run of the held head and records {@code audit}, in one transaction.
     *
     * @return the hold as it now is and the audit row's id; empty (nothing written) if the load
     *         is not held, or is being skipped
     */
    Optional<Changed> retry(String loadId, AuditRecord audit);

    /**
     * Logs {@code skipped} in the held head's place, marks the hold SKIPPED and records
     * {@code audit}, in one transaction; {@code skipped.messageId()} must be the held head.
     *
     * @return the hold and the audit row's id; empty (nothing written) if the load is not held
     *         at that message, or is being skipped already
     * @throws dev.loadflow.store.eventlog.DuplicateEntryException if the message was processed
     *         meanwhile (a retry ran it): nothing written
     */
    Optional<Changed> skip(MessageSkipped skipped, AuditRecord audit);

    /** Ends the hold of {@code loadId} at {@code messageId} (the head was processed, skipped, or is gone). */
    void release(String loadId, String messageId);

    /**
     * Which holds: held since {@code since} (inclusive) and before {@code until}, at a message
     * of {@code messageType}; a null bound or type matches every hold.
     */
    record Filter(Instant since, Instant until, String messageType) {

        public static final Filter ALL = new Filter(null, null, null);

        public Filter {
            if (since != null && until != null && !until.isAfter(since)) {
                throw new IllegalArgumentException("until must be after since");
            }
        }
    }

    /** A hold as an operator's change left it, and the change's audit row. */
    record Changed(HeldLoad held, long auditId) {
    }
}
