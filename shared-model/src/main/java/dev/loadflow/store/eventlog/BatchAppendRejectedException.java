package dev.loadflow.store.eventlog;

import dev.loadflow.store.StoreException;

import java.util.List;
import java.util.Set;

/**
 * A batch append hit a unique violation (a concurrent writer, an entry already logged, an
 * outbox id taken). On one PostgreSQL the batch is one transaction and nothing was written; a
 * store that commits each load by itself (PostgreSQL distributed by Citus) reports the loads it
 * did write ({@link #written}), each whole. The caller appends the others one by one, which
 * tells each load's case apart.
 */
public final class BatchAppendRejectedException extends StoreException {

    private final List<String> loadIds;
    private final Set<String> written;

    public BatchAppendRejectedException(List<String> loadIds, Throwable cause) {
        this(loadIds, Set.of(), cause);
    }

    /** @param written the loads of the batch that were appended, each all of it, before or beside the violation */
    public BatchAppendRejectedException(List<String> loadIds, Set<String> written, Throwable cause) {
        super("batch append to " + loadIds.size() + " loads rejected, " + (written.isEmpty() ? "nothing"
                : written.size() + " of them") + " written: " + cause.getMessage(), cause);
        this.loadIds = List.copyOf(loadIds);
        this.written = Set.copyOf(written);
    }

    public List<String> loadIds() {
        return loadIds;
    }

    /** The loads of the batch that were written, each whole; empty where the batch is one transaction. */
    public Set<String> written() {
        return written;
    }
}
