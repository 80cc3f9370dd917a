package dev.loadflow.worker;

import dev.loadflow.worker.hold.PoisonGate;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.Optional;

/** The load worker's loop and runs ({@code loadflow.worker.*}). */
@ConfigMapping(prefix = "loadflow.worker")
public interface WorkerConfig {

    /**
     * How many batches one instance runs at once; up to {@code concurrency × batch-size} loads
     * are in flight, each with up to {@link #perLoad} messages. Unset: 8, and with the LLM
     * policy {@code loadflow.policy.llm.max-concurrency} (each run its own batch, one model call
     * in flight for each).
     */
    Optional<Integer> concurrency();

    /**
     * How many loads one receive takes and runs together: one read and one append for the batch,
     * and one run deadline for all of it. Unset: 64, and 1 with the LLM policy, so that the
     * deadline is each run's own: a run that waits minutes for a model holds no other load's
     * run past it. On SQS each load is a receive call of its own.
     */
    Optional<Integer> batchSize();

    /**
     * How many queued messages of one load a batch may take at once, in order: a busy load's
     * backlog (a device replaying an hour of pings) is decided in one go, one log read and one
     * append, instead of one message per round of receive, run and ack. Unset: 10 (on SQS FIFO,
     * which hands out up to ten messages of a group a call, as on PostgreSQL), and 1 with the LLM
     * policy (a run's model calls are made one after the other, all within the run deadline).
     */
    Optional<Integer> perLoad();

    /**
     * The longest a run may take, far inside the 5-minute limit and shorter than the queue's
     * visibility timeout; a run past it is abandoned and its message given back.
     */
    @WithDefault("PT2M")
    Duration runDeadline();

    /**
     * After a receive that came back short of a batch, how long the loop lets more loads get
     * work before it receives again: fuller batches for at most this much latency. 0 receives at once.
     */
    @WithDefault("PT0.005S")
    Duration linger();

    /**
     * How many loads' projections a worker keeps between runs, so a run reads only what was
     * logged since; 0 reads each load's whole log on every run.
     */
    @WithDefault("10000")
    int projectionCache();

    /** How often a run re-reads, re-projects and re-decides after a concurrency conflict before it leaves the message to redelivery. */
    @WithDefault("5")
    int conflictRetries();

    /** How long one receive waits for a message when the queue is empty (a NOTIFY ends the wait early). */
    @WithDefault("PT1S")
    Duration pollWait();

    /** The first delay before a message whose run failed is delivered again; it doubles per delivery, up to a minute. */
    @WithDefault("PT1S")
    Duration retryDelay();

    /**
     * Deliveries after which a message that still fails is poison (never dropped): it holds its
     * load, or is parked ({@link #onPoison}). {@code loadflow.worker.max-receives}, its earlier
     * name, is still read.
     */
    @WithDefault("${loadflow.worker.max-receives:10}")
    int maxDeliveries();

    /**
     * What poison does to its load: {@code hold} (the default) keeps it at the load's head, the
     * load's later messages wait for an operator's retry or skip, other loads flow;
     * {@code skip} parks it in the dead-letter store and the load goes on without it.
     */
    @WithDefault("hold")
    PoisonGate.OnPoison onPoison();

    /**
     * How long a held head stays hidden each time the worker hands it back: how often a held
     * load is looked at again (an operator's retry or skip wakes it at once).
     */
    @WithDefault("PT1M")
    Duration holdRecheck();

    /** On shutdown, how long in-flight runs may finish before they are abandoned (their messages are given back). */
    @WithDefault("PT30S")
    Duration shutdownGrace();

    Consumer consumer();

    LoadLock loadLock();

    interface Consumer {
        /** Whether this instance consumes the load queue (off: ingest and read endpoints only). */
        @WithDefault("true")
        boolean enabled();
    }

    interface LoadLock {
        /**
         * Take a lease on the load (a row in {@code load_lock}) for the run, and skip the run (retry shortly)
         * when another holds it. Only saves wasted policy calls; correctness never depends on it.
         * Unset: on with the LLM policy (a model call is slow and paid), off with the SOP.
         */
        Optional<Boolean> enabled();
    }
}
