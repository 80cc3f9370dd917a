package dev.loadflow.worker.agent;

/** A model's answer the guard rails refuse; the message says why, in words the model is sent back. */
public final class RefusedAnswer extends RuntimeException {

    public RefusedAnswer(String message) {
        super(message);
    }
}
