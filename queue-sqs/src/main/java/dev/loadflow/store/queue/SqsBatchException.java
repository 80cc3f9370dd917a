package dev.loadflow.store.queue;

/** SQS answered a batch call but refused one of its entries (the call itself did not fail). */
public final class SqsBatchException extends RuntimeException {

    public SqsBatchException(String message) {
        super(message);
    }
}
