package dev.loadflow.worker.run;

/** How one run for one delivered event ended; the tag of {@code loadflow.worker.runs}. */
public enum RunResult {
    /** The policy decided; the event, its decision and its outbox rows were appended. Ack. */
    DECIDED("decided", true),
    /** The deterministic filter recorded a noop without calling the policy. Ack. */
    FILTERED("filtered", true),
    /** The event was already in the log. Ack, nothing written. */
    DUPLICATE("duplicate", true),
    /** Every attempt hit a concurrency conflict: the message is left for redelivery. */
    CONFLICT_RETRIED("conflict_retried", false),
    /** The optional load lock was held by another run: the message is retried shortly. */
    LOCKED("locked", false),
    /** The run threw or passed its deadline: the message is redelivered with backoff. */
    FAILED("failed", false),
    /**
     * Not run: an earlier event of the same load in the batch did not end, and a load's events
     * run in order. The message is given back with that one.
     */
    NOT_RUN("not_run", false);

    private final String tag;
    private final boolean ack;

    RunResult(String tag, boolean ack) {
        this.tag = tag;
        this.ack = ack;
    }

    public String tag() {
        return tag;
    }

    /** Whether the message is done with (acked), rather than given back for redelivery. */
    public boolean ack() {
        return ack;
    }
}
