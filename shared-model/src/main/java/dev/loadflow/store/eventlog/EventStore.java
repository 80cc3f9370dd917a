package dev.loadflow.store.eventlog;

import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.store.outbox.OutboxMessage;

import java.util.List;

/**
 * The per-load log, with optimistic concurrency. Exactly one writer per load is intended (the
 * load worker), but correctness never depends on it: the version check makes a second writer
 * harmless.
 *
 * <p>Calls block; call them from a worker or virtual thread, never from an event loop.
 */
public interface EventStore {

    /** The load's whole log and its version (the seq of the last entry, 0 for a new load). */
    LoadLog read(String loadId);

    /** Whether the load's log holds an entry with this id (an event id, or {@code dec:{eventId}}). */
    boolean contains(String loadId, String entryId);

    /**
     * Appends {@code entries} (seq {@code expectedVersion + 1} onward) and inserts
     * {@code outbox} rows, in one transaction: all of it is written or none of it.
     *
     * @return the new version
     * @throws ConcurrencyConflictException the log is no longer at {@code expectedVersion}
     * @throws DuplicateEntryException      an entry id is already in the load's log
     * @throws DuplicateActionKeyException  an outbox id already exists
     */
    long append(String loadId, List<LogEntry> entries, long expectedVersion, List<OutboxMessage> outbox);
}
