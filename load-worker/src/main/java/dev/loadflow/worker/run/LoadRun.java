package dev.loadflow.worker.run;

import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.InboundEvent;
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
import java.util.HashMap;
import java.util.HashSet;
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
     * Runs several delivered events of different loads together: one read for all their logs
     * and one append for all their decisions, so a busy worker pays two round trips per batch
     * instead of two per event. An event whose policy threw fails alone (its message is given
     * back); an event whose append cannot go in the batch (its log moved, an entry or action key
     * collided) runs again on its own through {@link #process}, so every event ends exactly as
     * it would alone. With the load lock on, or a load twice in the batch, every event runs on
     * its own: the loads side by side (a model's decisions take seconds each, and a batch must
     * not wait for them one after another), each load's events in their order.
     *
     * @return one outcome per event, in order; {@link RunResult#FAILED} where the run threw
     */
    public List<RunOutcome> processAll(List<InboundEvent> batch) {
        Set<String> loads = new HashSet<>();
        batch.forEach(event -> loads.add(event.loadId()));
        if (batch.size() == 1) {
            return List.of(processOrFail(batch.getFirst()));
        }
        if (lock != LoadLock.NONE || loads.size() < batch.size()) {
            return eachLoadOnItsOwn(batch);
        }
        long start = System.nanoTime();
        Span[] spans = new Span[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            spans[i] = span(batch.get(i));
        }
        Map<String, LoadState> states = projections.current(loads);
        Instant now = clock.instant();
        RunOutcome[] outcomes = new RunOutcome[batch.size()];
        List<Integer> appending = new ArrayList<>();
        List<EventStore.Append> appends = new ArrayList<>();
        Map<String, DecisionRecorded> decisions = new HashMap<>();
        List<Integer> alone = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("batch of " + batch.size() + " runs abandoned (deadline or shutdown)");
            }
            InboundEvent event = batch.get(i);
            LoadState state = states.get(event.loadId());
            if (state.hasProcessed(event.eventId())) {
                if (logged(event)) {
                    outcomes[i] = new RunOutcome(RunResult.DUPLICATE, state.version(), 0, "already processed");
                } else {
                    alone.add(i);
                }
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
                continue;
            }
            decisions.put(event.loadId(), decision);
            appending.add(i);
            appends.add(new EventStore.Append(event.loadId(), List.of(event, decision), state.version(),
                    outboxRows(event, decision, now, Traces.traceparent(spans[i]))));
        }
        List<Span> appendSpans = new ArrayList<>(appending.size());
        for (int i : appending) {
            appendSpans.add(traces.start("loadflow.append", SpanKind.INTERNAL, Traces.traceparent(spans[i])));
        }
        try {
            Set<String> behind = events.appendAll(appends);
            for (int k = 0; k < appending.size(); k++) {
                int i = appending.get(k);
                String loadId = batch.get(i).loadId();
                if (behind.contains(loadId)) {
                    // the load's log moved since the batch read it: a conflict, run again on its own
                    metrics.conflict();
                    discarded(decisions.get(loadId));
                    try (LogContext logged = logContext(batch.get(i), spans[i])) {
                        LOG.infof("conflict: load %s's log moved past version %d while %s was decided in a batch; re-deciding",
                                loadId, appends.get(k).expectedVersion(), batch.get(i).eventId());
                    }
                    alone.add(i);
                } else {
                    DecisionRecorded decision = decisions.get(loadId);
                    remember(states.get(loadId), batch.get(i), decision, now);
                    outcomes[i] = new RunOutcome(decision.filtered() ? RunResult.FILTERED : RunResult.DECIDED,
                            appends.get(k).expectedVersion() + 2, 0, decision.reason());
                }
            }
        } catch (BatchAppendRejectedException e) {
            appending.forEach(i -> discarded(decisions.get(batch.get(i).loadId())));
            alone.addAll(appending);
        } finally {
            appendSpans.forEach(Span::end);
        }
        long took = System.nanoTime() - start;
        for (int i = 0; i < outcomes.length; i++) {
            if (outcomes[i] != null) {
                metrics.run(outcomes[i].result(), took);
            }
            // an event run again on its own gets a span of that run too
            spans[i].setAttribute(RESULT, outcomes[i] == null ? "run_alone" : outcomes[i].result().tag());
            spans[i].end();
        }
        for (int i : alone) {
            outcomes[i] = processOrFail(batch.get(i));
        }
        return List.of(outcomes);
    }

    /** Every event through {@link #process}: the loads on virtual threads side by side, a load's events in order. */
    private List<RunOutcome> eachLoadOnItsOwn(List<InboundEvent> batch) {
        Map<String, List<Integer>> byLoad = new LinkedHashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            byLoad.computeIfAbsent(batch.get(i).loadId(), load -> new ArrayList<>()).add(i);
        }
        RunOutcome[] outcomes = new RunOutcome[batch.size()];
        ExecutorService runs = Executors.newVirtualThreadPerTaskExecutor();
        try {
            List<Future<?>> loads = new ArrayList<>();
            for (List<Integer> indexes : byLoad.values()) {
                loads.add(runs.submit(() -> indexes.forEach(i -> outcomes[i] = processOrFail(batch.get(i)))));
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
