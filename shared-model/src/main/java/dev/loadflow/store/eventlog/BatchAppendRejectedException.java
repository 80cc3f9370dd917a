package dev.loadflow.store.eventlog;

import dev.loadflow.store.StoreException;

import java.util.List;

/**
 * A batch append hit a unique violation (a concurrent writer, an entry already logged, an
 * outbox id taken) and wrote nothing. The caller appends the loads one by one, which tells
 * each load's case apart.
 */
public final class BatchAppendRejectedException extends StoreException {

    private final List<String> loadIds;

    public BatchAppendRejectedException(List<String> loadIds, Throwable cause) {
        super("batch append to " + loadIds.size() + " loads rejected, nothing written: " + cause.getMessage(), cause);
        this.loadIds = List.copyOf(loadIds);
    }

    public List<String> loadIds() {
        return loadIds;
    }
}
