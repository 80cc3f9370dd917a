package dev.loadflow.store.eventlog;

import dev.loadflow.store.StoreException;

/**
 * The load's log is no longer at the version the append expected: another run appended first.
 * Nothing was written. The run re-reads, re-projects and re-decides.
 */
public final class ConcurrencyConflictException extends StoreException {

    private final String loadId;
    private final long expectedVersion;

    public ConcurrencyConflictException(String loadId, long expectedVersion, Throwable cause) {
        super("load " + loadId + " is no longer at version " + expectedVersion, cause);
        this.loadId = loadId;
        this.expectedVersion = expectedVersion;
    }

    public String loadId() {
        return loadId;
    }

    public long expectedVersion() {
        return expectedVersion;
    }
}
