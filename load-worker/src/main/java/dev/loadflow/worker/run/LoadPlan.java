package dev.loadflow.worker.run;

import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.OutboxMessage;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One load's part of a run: its events decided in order, each on the state the one before left,
 * and the one append that logs them all (each event, its decision and the decision's outbox rows)
 * at the version the run read. A single event is a plan of one.
 */
final class LoadPlan {

    /** An event of the plan, its decision, and the log's version once both are appended. */
    private record Decided(LoadRun.Delivery delivery, DecisionRecorded decision, long version) {
    }

    private final String loadId;
    private final LoadState before;
    private LoadState after;
    private final List<Decided> decided = new ArrayList<>();
    private final List<LogEntry> entries = new ArrayList<>();
    private final List<OutboxMessage> rows = new ArrayList<>();

    LoadPlan(String loadId, LoadState before) {
        this.loadId = loadId;
        this.before = before;
        this.after = before;
    }

    String loadId() {
        return loadId;
    }

    LoadState before() {
        return before;
    }

    /** The load's state once the plan is appended: what the run keeps, so the next run reads nothing it wrote. */
    LoadState after() {
        return after;
    }

    boolean isEmpty() {
        return decided.isEmpty();
    }

    int size() {
        return decided.size();
    }

    LoadRun.Delivery first() {
        return decided.getFirst().delivery();
    }

    /** Adds {@code delivery}'s event with its decision; its rows carry the trace of the event's run. */
    void add(LoadRun.Delivery delivery, DecisionRecorded decision, Instant now) {
        long version = after.version();
        after = after.plus(List.of(new RecordedEntry(version + 1, now, delivery.event()),
                new RecordedEntry(version + 2, now, decision)));
        decided.add(new Decided(delivery, decision, after.version()));
        entries.add(delivery.event());
        entries.add(decision);
        String traceparent = delivery.run().traceparent();
        for (var action : decision.actions()) {
            rows.add(OutboxMessage.of(loadId, action, now, delivery.event().correlationId(), delivery.event().eventId(),
                    traceparent));
        }
    }

    EventStore.Append append() {
        return new EventStore.Append(loadId, entries, before.version(), rows);
    }

    /** The plan was appended: each decided event ends decided (or filtered) at its version. */
    void logged(int conflicts) {
        for (Decided d : decided) {
            d.delivery().end(new RunOutcome(d.decision().filtered() ? RunResult.FILTERED : RunResult.DECIDED, d.version(),
                    conflicts, d.decision().reason()));
        }
    }

    /** The plan will not be appended: its decisions are told to the listener (a model asked for them was asked in vain). */
    void discard(RunListener listener) {
        decided.forEach(d -> listener.discarded(d.decision()));
    }
}
