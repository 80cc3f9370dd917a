package dev.loadflow.store.queue;

import dev.loadflow.store.StoreException;

/**
 * The queue answered a batch and refused one of its messages (the call itself got through: the
 * queue is up). The messages before it in the batch were queued; queued again one by one, the
 * refused message fails alone and its neighbours go in.
 */
public final class MessageRefusedException extends StoreException {

    public MessageRefusedException(String message) {
        super(message);
    }
}
