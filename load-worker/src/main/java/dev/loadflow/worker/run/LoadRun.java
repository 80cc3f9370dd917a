package dev.loadflow.worker.run;

import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.policy.Decision;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.model.policy.DeterministicFilter;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.service.trace.LogContext;
import dev.loadflow.service.trace.Traces;
import dev.loadflow.store.eventlog.BatchAppendRejectedException;
import dev.loadflow.store.eventlog.ConcurrencyConflictException;
import dev.loadflow.store.eventlog.DuplicateActionKeyException;
import dev.loadflow.store.eventlog.DuplicateEntryException;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.OutboxMessage;
import dev.loadflow.worker.lock.LoadLock;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One run per delivered event (docs/design.md, "Services"): read the load's log, project it
 * (only what was logged since the worker last saw the load: {@link Projections}), filter
 * deterministically or ask the policy, and append the event, its decision and the
 * decision's outbox rows in one transaction at the version that was read.
 *
 * <ul>
 *   <li>conflict (another run appended first): re-read, re-project, re-decide, at most
 *       {@code conflictRetries} more times, then give the message back;</li>
 *   <li>duplicate entry (already processed): done, ack;</li>
 *   <li>duplicate action key (a decision bug): decide again as one Hero task keyed by the
 *       event, so the event is still logged and a human sees it.</li>
 * </ul>
 * Plain Java, so evals and benchmarks drive the same code with a {@code FakeClock}.
 */
public final class LoadRun {

    private static final Logger LOG = Logger.getLogger(LoadRun.class);
    private static final AttributeKey<String> LOAD_ID = AttributeKey.stringKey("loadflow.load_id");
    private static final AttributeKey<String> EVENT_ID = AttributeKey.stringKey("loadflow.event_id");
    private static final AttributeKey<String> RESULT = AttributeKey.stringKey("loadflow.result");

    private final EventStore events;
    private final DecisionPolicy policy;
    private final Clock clock;
    private final LoadLock lock;
    private final int conflictRetries;
    private final WorkerMetrics metrics;
    private final Projections projections;
    private final Traces traces;

    /** A run that keeps the projections of up to 10,000 loads and records no spans of its own. */
    public LoadRun(EventStore events, DecisionPolicy policy, Clock clock, LoadLock lock, int conflictRetries,
                   WorkerMetrics metrics) {
        this(events, policy, clock, lock, conflictRetries, metrics, 10_000, Traces.NONE);
    }

    /** A run that records no spans of its own (an event's trace still reaches its outbox rows). */
    public LoadRun(EventStore events, DecisionPolicy policy, Clock clock, LoadLock lock, int conflictRetries,
                   WorkerMetrics metrics, int projectionCache) {
        this(events, policy, clock, lock, conflictRetries, metrics, projectionCache, Traces.NONE);
    }

    /**
     * @param projectionCache how many loads' projections to keep between runs (0: read each load's whole log per run)
     * @param traces          where each event's run span goes: a child of the event's trace, the parent of its rows' sends
     */
    public LoadRun(EventStore events, DecisionPolicy policy, Clock clock, LoadLock lock, int conflictRetries,
                   WorkerMetrics metrics, int projectionCache, Traces traces) {
        if (conflictRetries < 0) {
            throw new IllegalArgumentException("conflict retries must be >= 0, got " + conflictRetries);
        }
        this.events = events;
        this.policy = policy;
        this.clock = clock;
        this.lock = lock;
        this.conflictRetries = conflictRetries;
        this.metrics = metrics;
        this.projections = new Projections(events, projectionCache);
        this.traces = traces;
    }

    /** Processes one delivered event; throws when the run fails (the caller gives the message back). */
    public RunOutcome process(InboundEvent event) {
        long start = System.nanoTime();
        RunResult result = RunResult.FAILED;
        Span span = span(event);
        try (Scope scope = span.makeCurrent(); LogContext logged = logContext(event, span)) {
            Optional<LoadLock.Lease> lease = lock.tryLock(event.loadId());
            if (lease.isEmpty()) {
                result = RunResult.LOCKED;
                return new RunOutcome(RunResult.LOCKED, -1, 0, "another run holds the load's lock");
            }
            try (LoadLock.Lease held = lease.get()) {
                RunOutcome outcome = decideAndAppend(event, Traces.traceparent(span));
                result = outcome.result();
                return outcome;
            }
        } finally {
            metrics.run(result, System.nanoTime() - start);
            span.setAttribute(RESULT, result.tag());
            span.end();
        }
    }

    private static LogContext logContext(InboundEvent event, Span span) {
        return LogContext.of(event.loadId(), event.eventId(), event.correlationId(), span);
    }

    /** The span of one event's run: a child of the trace the event carries (a new trace if none). */
    private Span span(InboundEvent event) {
        Span span = traces.start("loadflow.run " + event.typeName(), SpanKind.CONSUMER, event.traceparent());
        span.setAttribute(LOAD_ID, event.loadId());
        span.setAttribute(EVENT_ID, event.eventId());
        return span;
    }

    /**
     * Runs a batch of delivered events: one read for all their loads' logs and one append for
     * all their decisions, so a busy worker pays two round trips per batch instead of two per
     * event. A load may have several events in the batch (a run of its queue, in order): they
     * are decided one after the other, each on the state the one before left, and appended
     * together. Within a load, nothing runs after an event that did not end (its policy threw):
     * that one is {@link RunResult#FAILED} and those behind it {@link RunResult#NOT_RUN}, so a
     * load's events are never decided out of order. A load whose append cannot go in the batch
     * (its log moved, an entry or action key collided) runs again on its own through
     * {@link #process}, event by event, so every event ends exactly as it would alone. With the
     * load lock on, every event runs on its own: the loads side by side (a model's decisions
     * take seconds each, and a batch must not wait for them one after another), each load's
     * events in their order.
     *
     * @return one outcome per event, in order
     */
    public List<RunOutcome> processAll(List<InboundEvent> batch) {
        if (batch.size() == 1) {
            return List.of(processOrFail(batch.getFirst()));
        }
        Map<String, List<Integer>> byLoad = byLoad(batch);
        if (lock != LoadLock.NONE) {
            return eachLoadOnItsOwn(batch, byLoad);
        }
        long start = System.nanoTime();
        Span[] spans = new Span[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            spans[i] = span(batch.get(i));
        }
        Map<String, LoadState> states = projections.current(byLoad.keySet());
        Instant now = clock.instant();
        RunOutcome[] outcomes = new RunOutcome[batch.size()];
        List<LoadPlan> plans = new ArrayList<>();
        Map<String, List<Integer>> alone = new LinkedHashMap<>();
        for (Map.Entry<String, List<Integer>> load : byLoad.entrySet()) {
            LoadPlan plan = plan(load.getKey(), load.getValue(), states.get(load.getKey()), batch, spans, now, outcomes);
            if (plan == null) {
                alone.put(load.getKey(), load.getValue());
            } else if (!plan.decided.isEmpty()) {
                plans.add(plan);
            }
        }
        List<Span> appendSpans = new ArrayList<>();
        for (LoadPlan plan : plans) {
            appendSpans.add(traces.start("loadflow.append", SpanKind.INTERNAL, Traces.traceparent(spans[plan.decided.getFirst()])));
        }
        try {
            Set<String> behind = events.appendAll(plans.stream().map(LoadPlan::append).toList());
            for (LoadPlan plan : plans) {
                if (behind.contains(plan.loadId)) {
                    // the load's log moved since the batch read it: a conflict, run again on its own
                    metrics.conflict();
                    plan.discard();
                    try (LogContext logged = logContext(batch.get(plan.decided.getFirst()), spans[plan.decided.getFirst()])) {
                        LOG.infof("conflict: load %s's log moved past version %d while %d of its events were decided in a batch; "
                                + "re-deciding", plan.loadId, plan.before.version(), plan.decided.size());
                    }
                    alone.put(plan.loadId, plan.runAgain(outcomes));
                } else {
                    projections.remember(List.of(plan.after));
                    for (int k = 0; k < plan.decided.size(); k++) {
                        DecisionRecorded decision = plan.decisions.get(k);
                        outcomes[plan.decided.get(k)] = new RunOutcome(
                                decision.filtered() ? RunResult.FILTERED : RunResult.DECIDED,
                                plan.before.version() + 2L * (k + 1), 0, decision.reason());
                    }
                }
            }
        } catch (BatchAppendRejectedException e) {
            for (LoadPlan plan : plans) {
                plan.discard();
                alone.put(plan.loadId, plan.runAgain(outcomes));
            }
        } finally {
            appendSpans.forEach(Span::end);
        }
        long took = System.nanoTime() - start;
        for (int i = 0; i < outcomes.length; i++) {
            if (outcomes[i] != null && outcomes[i].result() != RunResult.NOT_RUN) {
                metrics.run(outcomes[i].result(), took);
            }
            // an event run again on its own gets a span of that run too
            spans[i].setAttribute(RESULT, outcomes[i] == null ? "run_alone" : outcomes[i].result().tag());
            spans[i].end();
        }
        alone.forEach((load, indexes) -> runInOrder(batch, indexes, outcomes));
        return List.of(outcomes);
    }

    /**
     * What a batch does for one load: its events decided in order, each on the state the one
     * before left, ready for one append. Null when the kept projection proved ahead of the log
     * (the load then runs on its own, on the log as it is).
     */
    private LoadPlan plan(String loadId, List<Integer> indexes, LoadState before, List<InboundEvent> batch, Span[] spans,
                          Instant now, RunOutcome[] outcomes) {
        LoadPlan plan = new LoadPlan(loadId, indexes, before);
        for (int k = 0; k < indexes.size(); k++) {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("batch of " + batch.size() + " runs abandoned (deadline or shutdown)");
            }
            int i = indexes.get(k);
            InboundEvent event = batch.get(i);
            LoadState state = plan.after;
            if (state.hasProcessed(event.eventId())) {
                if (!logged(event)) {
                    plan.discard();
                    indexes.forEach(j -> outcomes[j] = null);
                    return null;
                }
                outcomes[i] = new RunOutcome(RunResult.DUPLICATE, state.version(), 0, "already processed");
                continue;
            }
            DecisionRecorded decision;
            try (Scope scope = spans[i].makeCurrent(); LogContext logged = logContext(event, spans[i])) {
                decision = DeterministicFilter.filter(event, state)
                        .map(reason -> DecisionRecorded.filtered(event, now, reason))
                        .orElseGet(() -> record(event, policy.decide(event, state, now), now));
            } catch (RuntimeException e) {
                outcomes[i] = new RunOutcome(RunResult.FAILED, state.version(), 0,
                        "policy failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
                notRunBehind(indexes.subList(k + 1, indexes.size()), outcomes, event);
                break;
            }
            plan.add(i, event, decision, now, outboxRows(event, decision, now, Traces.traceparent(spans[i])));
        }
        return plan;
    }

    /** The events of one load in a batch, decided in order, and what appending them takes. */
    private final class LoadPlan {

        final String loadId;
        final List<Integer> indexes;
        final LoadState before;
        LoadState after;
        final List<Integer> decided = new ArrayList<>();
        final List<DecisionRecorded> decisions = new ArrayList<>();
        final List<LogEntry> entries = new ArrayList<>();
        final List<OutboxMessage> rows = new ArrayList<>();

        LoadPlan(String loadId, List<Integer> indexes, LoadState before) {
            this.loadId = loadId;
            this.indexes = indexes;
            this.before = before;
            this.after = before;
        }

        void add(int index, InboundEvent event, DecisionRecorded decision, Instant now, List<OutboxMessage> decisionRows) {
            long version = after.version();
            after = after.plus(List.of(new RecordedEntry(version + 1, now, event), new RecordedEntry(version + 2, now, decision)));
            decided.add(index);
            decisions.add(decision);
            entries.add(event);
            entries.add(decision);
            rows.addAll(decisionRows);
        }

        EventStore.Append append() {
            return new EventStore.Append(loadId, entries, before.version(), rows);
        }

        /** Its decisions will not be logged: a model asked for them was asked in vain. */
        void discard() {
            decisions.forEach(LoadRun.this::discarded);
        }

        /** The load's events to run again on their own, in order: all but those found already processed. */
        List<Integer> runAgain(RunOutcome[] outcomes) {
            List<Integer> again = new ArrayList<>();
            for (int i : indexes) {
                if (outcomes[i] == null || !outcomes[i].result().ack()) {
                    outcomes[i] = null;
                    again.add(i);
                }
            }
            return again;
        }
    }
    /** Every event through {@link #process}: the loads on virtual threads side by side, a load's events in order. */
    private List<RunOutcome> eachLoadOnItsOwn(List<InboundEvent> batch, Map<String, List<Integer>> byLoad) {
        RunOutcome[] outcomes = new RunOutcome[batch.size()];
        ExecutorService runs = Executors.newVirtualThreadPerTaskExecutor();
        try {
            List<Future<?>> loads = new ArrayList<>();
            for (List<Integer> indexes : byLoad.values()) {
                loads.add(runs.submit(() -> runInOrder(batch, indexes, outcomes)));
            }
            for (Future<?> load : loads) {
                load.get();
            }
        } catch (InterruptedException e) {
            runs.shutdownNow();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("batch of " + batch.size() + " runs abandoned (deadline or shutdown)");
        } catch (ExecutionException e) {
            throw new IllegalStateException("a run of the batch failed outside its own handling", e.getCause());
        } finally {
            runs.shutdown();
        }
        return List.of(outcomes);
    }

    /** One load's events through {@link #process}, in order, up to the first that does not end (the rest do not run). */
    private void runInOrder(List<InboundEvent> batch, List<Integer> indexes, RunOutcome[] outcomes) {
        for (int k = 0; k < indexes.size(); k++) {
            int i = indexes.get(k);
            outcomes[i] = processOrFail(batch.get(i));
            if (!outcomes[i].result().ack()) {
                notRunBehind(indexes.subList(k + 1, indexes.size()), outcomes, batch.get(i));
                return;
            }
        }
    }

    /** The events behind one of their load that did not end: given back without running, their order kept. */
    private static void notRunBehind(List<Integer> behind, RunOutcome[] outcomes, InboundEvent stopped) {
        behind.forEach(j -> outcomes[j] = new RunOutcome(RunResult.NOT_RUN, -1, 0,
                "behind " + stopped.eventId() + " of the same load, which did not end"));
    }

    private static Map<String, List<Integer>> byLoad(List<InboundEvent> batch) {
        Map<String, List<Integer>> byLoad = new LinkedHashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            byLoad.computeIfAbsent(batch.get(i).loadId(), load -> new ArrayList<>()).add(i);
        }
        return byLoad;
    }

    private RunOutcome processOrFail(InboundEvent event) {
        try {
            return process(event);
        } catch (RuntimeException e) {
            return new RunOutcome(RunResult.FAILED, -1, 0, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private RunOutcome decideAndAppend(InboundEvent event, String traceparent) {
        int conflicts = 0;
        long version = 0;
        for (int attempt = 0; attempt <= conflictRetries; attempt++) {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("run for " + event.eventId() + " abandoned (deadline or shutdown)");
            }
            LoadState state = current(event);
            version = state.version();
            if (state.hasProcessed(event.eventId())) {
                return new RunOutcome(RunResult.DUPLICATE, version, conflicts, "already processed");
            }
            Instant now = clock.instant();
            DecisionRecorded decision = DeterministicFilter.filter(event, state)
                    .map(reason -> DecisionRecorded.filtered(event, now, reason))
                    .orElseGet(() -> record(event, policy.decide(event, state, now), now));
            try {
                long appended = append(event, decision, version, now, traceparent);
                remember(state, event, decision, now);
                return new RunOutcome(decision.filtered() ? RunResult.FILTERED : RunResult.DECIDED, appended,
                        conflicts, decision.reason());
            } catch (ConcurrencyConflictException e) {
                conflicts++;
                metrics.conflict();
                discarded(decision);
                // read the whole log again: what is kept may be ahead of it, not only behind
                projections.forget(event.loadId());
                LOG.infof("conflict: load %s's log moved past version %d while %s was decided (conflict %d); re-deciding",
                        event.loadId(), version, event.eventId(), conflicts);
            } catch (DuplicateEntryException e) {
                return new RunOutcome(RunResult.DUPLICATE, version, conflicts, "already processed");
            } catch (DuplicateActionKeyException e) {
                metrics.duplicateActionKey();
                LOG.errorf("decision bug: the decision on %s of load %s repeats action keys %s; decided again as one Hero task",
                        event.eventId(), event.loadId(), e.outboxIds());
                DecisionRecorded fallback = record(event, Decision.heroTaskAfterDuplicateKey(event, e.outboxIds()), now);
                try {
                    long appended = append(event, fallback, version, now, traceparent);
                    remember(state, event, fallback, now);
                    return new RunOutcome(RunResult.DECIDED, appended, conflicts, fallback.reason());
                } catch (ConcurrencyConflictException conflict) {
                    conflicts++;
                    metrics.conflict();
                } catch (DuplicateEntryException duplicate) {
                    return new RunOutcome(RunResult.DUPLICATE, version, conflicts, "already processed");
                }
            }
        }
        return new RunOutcome(RunResult.CONFLICT_RETRIED, version, conflicts,
                conflicts + " conflicts in a row: left for redelivery");
    }

    /** The load's projection, read again from its whole log when it has {@code event} processed and the log does not. */
    private LoadState current(InboundEvent event) {
        LoadState state = projections.current(event.loadId());
        return state.hasProcessed(event.eventId()) && !logged(event) ? projections.current(event.loadId()) : state;
    }

    /**
     * Whether the log holds {@code event}, which the kept projection says was processed: it does
     * unless the database lost commits it had acknowledged (a failover to a standby that had not
     * received them). Then what is kept is ahead of the log: it is dropped, and the event is run
     * again on the log as it is, not acked as a duplicate of entries that are gone.
     */
    private boolean logged(InboundEvent event) {
        if (events.contains(event.loadId(), event.entryId())) {
            return true;
        }
        LOG.warnf("load %s: the kept projection has %s processed but the log does not (commits lost by the database?); "
                + "reading the load's whole log again", event.loadId(), event.eventId());
        projections.forget(event.loadId());
        return false;
    }

    private static DecisionRecorded record(InboundEvent event, Decision decision, Instant now) {
        return DecisionRecorded.decided(event, now, decision.actions(), decision.needsHeroTask(), decision.reason(),
                decision.closedAsks(), decision.provenance());
    }

    /** A decision that will not be logged (its append lost a race): a model asked for it was asked in vain. */
    private void discarded(DecisionRecorded decision) {
        if (decision.provenance() != null && decision.provenance().askedModel()) {
            metrics.wastedModelCall();
        }
    }

    /** Keeps the state after this run's own append, so the next run of the load reads nothing it wrote. */
    private void remember(LoadState before, InboundEvent event, DecisionRecorded decision, Instant now) {
        long version = before.version();
        projections.remember(List.of(before.plus(List.of(new RecordedEntry(version + 1, now, event),
                new RecordedEntry(version + 2, now, decision)))));
    }

    private long append(InboundEvent event, DecisionRecorded decision, long version, Instant now, String traceparent) {
        Span span = traces.start("loadflow.append", SpanKind.INTERNAL, traceparent);
        try {
            return events.append(event.loadId(), List.of(event, decision), version,
                    outboxRows(event, decision, now, traceparent));
        } finally {
            span.end();
        }
    }

    /** The decision's rows; each one's send continues the trace of the run that decided it. */
    private static List<OutboxMessage> outboxRows(InboundEvent event, DecisionRecorded decision, Instant now,
                                                  String traceparent) {
        return decision.actions().stream()
                .map(action -> OutboxMessage.of(event.loadId(), action, now, event.correlationId(), event.eventId(),
                        traceparent))
                .toList();
    }
}
