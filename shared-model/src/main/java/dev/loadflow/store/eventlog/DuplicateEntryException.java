package dev.loadflow.store.eventlog;

import dev.loadflow.store.StoreException;

import java.util.List;

/**
 * An entry with one of these ids is already in the load's log: the event was already
 * processed. Nothing was written; the run acks its message.
 */
public final class DuplicateEntryException extends StoreException {

    private final String loadId;
    private final List<String> entryIds;

    public DuplicateEntryException(String loadId, List<String> entryIds, Throwable cause) {
        super("load " + loadId + " already holds one of the entries " + entryIds + " (already processed)", cause);
        this.loadId = loadId;
        this.entryIds = List.copyOf(entryIds);
    }

    public String loadId() {
        return loadId;
    }

    public List<String> entryIds() {
        return entryIds;
    }
}
