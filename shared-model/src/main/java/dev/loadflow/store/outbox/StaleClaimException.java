package dev.loadflow.store.outbox;

import dev.loadflow.store.StoreException;

/**
 * The claim token no longer holds the row: its lease ended and another dispatcher took the
 * row over, or the row was already finished. Nothing changed.
 */
public final class StaleClaimException extends StoreException {

    private final String outboxId;

    public StaleClaimException(String outboxId) {
        super("the claim on outbox row " + outboxId + " is no longer held");
        this.outboxId = outboxId;
    }

    public String outboxId() {
        return outboxId;
    }
}
