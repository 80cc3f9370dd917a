package dev.loadflow.store;

/**
 * A broken rule of a store contract. Each subtype is one outcome a caller handles on purpose
 * (retry, ack, re-decide, drop the claim); anything else a store throws is an infrastructure
 * failure and leaves the caller's message for redelivery.
 */
public abstract class StoreException extends RuntimeException {

    protected StoreException(String message) {
        super(message);
    }

    protected StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
