package dev.loadflow.store.eventlog;

import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.store.outbox.OutboxMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

    /**
     * What several loads logged after the versions given, in one round trip, for a caller that
     * keeps projections: each load's entries with seq above its version, in order (empty when
     * there are none). Every requested load is in the map.
     */
    Map<String, List<RecordedEntry>> readAfter(Map<String, Long> versions);

    /** Whether the load's log holds an entry with this id (an event id, or {@code dec:{eventId}}). */
    boolean contains(String loadId, String entryId);

    /**
     * {@link #contains} for several entries (ingest's batch): for each {@code loadIds[i]} and
     * {@code entryIds[i]}, in order, whether that load's log holds that entry. A store in a
     * database answers in one round trip.
     */
    default List<Boolean> contains(List<String> loadIds, List<String> entryIds) {
        List<Boolean> held = new ArrayList<>(loadIds.size());
        for (int i = 0; i < loadIds.size(); i++) {
            held.add(contains(loadIds.get(i), entryIds.get(i)));
        }
        return held;
    }

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

    /**
     * Appends to several loads (at most one append per load). Each load is all or nothing: its
     * entries and outbox rows are written together or not at all. A load whose log is not at its
     * expected version is not written ({@link Unwritten#behind}). A unique violation (a concurrent
     * writer got there first, an entry already logged, an outbox id taken) writes none of the loads
     * that share its transaction ({@link Unwritten#refused}): append those one by one to learn
     * which failed and why. On one PostgreSQL the batch is one transaction, so a violation refuses
     * all of it.
     *
     * @return the loads not written; every other load of the batch was
     */
    Unwritten appendAll(List<Append> appends);

    /**
     * The loads of a batch {@link #appendAll} did not write: those whose log was not at the
     * expected version, and those a unique violation refused.
     */
    record Unwritten(Set<String> behind, Set<String> refused) {

        /** Every load of the batch was written. */
        public static final Unwritten NONE = new Unwritten(Set.of(), Set.of());

        public Unwritten {
            behind = Set.copyOf(behind);
            refused = Set.copyOf(refused);
        }

        /** Whether {@code loadId} was written. */
        public boolean wrote(String loadId) {
            return !behind.contains(loadId) && !refused.contains(loadId);
        }
    }

    /** One load's part of {@link #appendAll}. */
    record Append(String loadId, List<LogEntry> entries, long expectedVersion, List<OutboxMessage> outbox) {

        public Append {
            entries = List.copyOf(entries);
            outbox = List.copyOf(outbox);
            if (entries.isEmpty()) {
                throw new IllegalArgumentException("an append needs at least one entry");
            }
            if (expectedVersion < 0) {
                throw new IllegalArgumentException("expectedVersion must be >= 0, got " + expectedVersion);
            }
            for (LogEntry entry : entries) {
                if (!entry.loadId().equals(loadId)) {
                    throw new IllegalArgumentException("entry " + entry.entryId() + " belongs to load " + entry.loadId());
                }
            }
            for (OutboxMessage message : outbox) {
                if (!message.loadId().equals(loadId)) {
                    throw new IllegalArgumentException("outbox row " + message.outboxId() + " belongs to load " + message.loadId());
                }
            }
        }
    }
}
