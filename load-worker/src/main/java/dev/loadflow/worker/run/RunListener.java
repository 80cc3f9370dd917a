package dev.loadflow.worker.run;

import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.InboundEvent;

/**
 * What a {@link LoadRun} tells the world about its work, apart from the log it appends to: the
 * spans and log context of each event's run, and the worker's metrics ({@link RunTelemetry}).
 * The run calls it at each step; it never changes what is decided or appended.
 */
public interface RunListener {

    /** An event's run begins (in a batch: with the batch; run again on its own: again). */
    Run started(InboundEvent event);

    /** An append found the load's log moved past the version its decisions were taken on. */
    void conflict();

    /** A decision repeated action keys already in the outbox (a decision bug), and was replaced by a Hero task. */
    void duplicateActionKey();

    /** A decision that will not be logged: its append lost a race for the load, or its batch was rejected. */
    void discarded(DecisionRecorded decision);

    /** One event's run, as the listener follows it. */
    interface Run {

        /** The trace context the event's outbox rows carry, so each send continues the run's trace. */
        String traceparent();

        /** Makes this run current on the calling thread (its span, its log context) until closed. */
        Step current();

        /** Opens the append of this run's entries (with others of its batch, or alone); closed once it returned. */
        Step appending();

        /** The run ended with {@code result}, {@code nanos} after it began. */
        void ended(RunResult result, long nanos);

        /** The batch gave this event up undecided: it runs again on its own, as a new {@link Run}. */
        void passedOn();
    }

    /** Something a listener opened, closed by the run without a checked exception. */
    interface Step extends AutoCloseable {

        @Override
        void close();
    }
}
