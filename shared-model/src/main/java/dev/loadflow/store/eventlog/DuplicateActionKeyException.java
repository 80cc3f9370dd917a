package dev.loadflow.store.eventlog;

import dev.loadflow.store.StoreException;

import java.util.List;

/**
 * An outbox row with one of these keys already exists: the decision repeated an action key,
 * which is a bug of the decision, not a redelivery. Nothing was written; the run re-decides
 * as one Hero task keyed by the event so the inbound event is never lost.
 */
public final class DuplicateActionKeyException extends StoreException {

    private final String loadId;
    private final List<String> outboxIds;

    public DuplicateActionKeyException(String loadId, List<String> outboxIds, Throwable cause) {
        super("load " + loadId + ": one of the action keys " + outboxIds + " is already in the outbox", cause);
        this.loadId = loadId;
        this.outboxIds = List.copyOf(outboxIds);
    }

    public String loadId() {
        return loadId;
    }

    public List<String> outboxIds() {
        return outboxIds;
    }
}
