package dev.loadflow.worker.run;

import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.model.policy.Decisions;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.service.trace.Traces;
import dev.loadflow.store.eventlog.ConcurrencyConflictException;
import dev.loadflow.store.eventlog.DuplicateActionKeyException;
import dev.loadflow.store.eventlog.DuplicateEntryException;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.worker.lock.LoadLock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The run of delivered events (docs/design.md, "Services"). A batch is a list of per-load
 * {@link LoadPlan}s: read each load's state (only what was logged since the worker last saw the
 * load: {@link Projections}), decide its events in order ({@link Decisions#decide}: the filter,
 * else the policy), append every plan in one transaction at the versions read, and remember the
 * states after. A single event is a batch of one. What the run tells about itself (spans, log
 * context, metrics) goes through a {@link RunListener}.
 *
 * <ul>
 *   <li>conflict (another run appended first): the load runs again on its own, re-read and
 *       re-decided, at most {@code conflictRetries} more times, then the message goes back;</li>
 *   <li>duplicate entry (already processed): done, ack;</li>
 *   <li>duplicate action key (a decision bug): decided again as one Hero task keyed by the
 *       event, so the event is still logged and a person sees it.</li>
 * </ul>
 * Plain Java, so evals and benchmarks drive the same code with a {@code FakeClock}.
 */
public final class LoadRun {

    private static final Logger LOG = Logger.getLogger(LoadRun.class);

    private final EventStore events;
    private final DecisionPolicy policy;
    private final Clock clock;
    private final LoadLock lock;
    private final int conflictRetries;
    private final Projections projections;
    private final RunListener listener;

    private LoadRun(Builder builder) {
        this.events = builder.events;
        this.policy = builder.policy;
        this.clock = builder.clock;
        this.lock = builder.lock;
        this.conflictRetries = builder.conflictRetries;
        this.projections = new Projections(builder.events, builder.projectionCache);
        this.listener = builder.listener != null ? builder.listener
                : new RunTelemetry(builder.metrics != null ? builder.metrics : new WorkerMetrics(new SimpleMeterRegistry()),
                        builder.traces);
    }

    /** A run on {@code events} deciding with {@code policy} at {@code clock}'s time; the rest has defaults. */
    public static Builder builder(EventStore events, DecisionPolicy policy, Clock clock) {
        return new Builder(events, policy, clock);
    }

    /** Runs one delivered event: a batch of one. A run that fails ends {@link RunResult#FAILED} (the caller gives the message back). */
    public RunOutcome process(InboundEvent event) {
        return processAll(List.of(event)).getFirst();
    }

    /**
     * Runs a batch of delivered events: one read for all their loads and one append for all their
     * decisions, so a busy worker pays two round trips per batch instead of two per event. A load
     * may have several events in the batch (a run of its queue, in order): they are decided one
     * after the other, each on the state the one before left. Within a load, nothing runs after an
     * event that did not end (its policy threw): that one is {@link RunResult#FAILED} and those
     * behind it {@link RunResult#NOT_RUN}, so a load's events are never decided out of order. A
     * load whose append cannot go in the batch (its log moved, an entry or action key collided)
     * runs again on its own, event by event, so every event ends exactly as it would alone. With
     * the load lock on, every event runs on its own: the loads side by side (a model's decisions
     * take seconds each, and a batch must not wait for them one after another), each load's events
     * in their order.
     *
     * @return one outcome per event, in order
     */
    public List<RunOutcome> processAll(List<InboundEvent> batch) {
        List<Delivery> deliveries = batch.stream().map(Delivery::new).toList();
        Map<String, List<Delivery>> byLoad = new LinkedHashMap<>();
        for (Delivery delivery : deliveries) {
            byLoad.computeIfAbsent(delivery.event.loadId(), load -> new ArrayList<>()).add(delivery);
        }
        if (lock != LoadLock.NONE && byLoad.size() > 1) {
            eachLoadOnItsOwn(byLoad.values());
        } else if (lock != LoadLock.NONE || deliveries.size() == 1) {
            byLoad.values().forEach(this::oneByOne);
        } else {
            together(byLoad).forEach(this::oneByOne);
        }
        return deliveries.stream().map(Delivery::outcome).toList();
    }

    /**
     * The batch's loads planned and appended together; returns the loads to run again on their
     * own (those whose log moved, whose kept state proved ahead of the log, or whose batch was
     * rejected), each with its events that did not end.
     */
    private List<List<Delivery>> together(Map<String, List<Delivery>> byLoad) {
        long start = System.nanoTime();
        byLoad.values().forEach(load -> load.forEach(delivery -> delivery.run = listener.started(delivery.event)));
        List<List<Delivery>> alone = new ArrayList<>();
        List<LoadPlan> plans = planEach(byLoad, alone);
        List<RunListener.Step> appending = plans.stream().map(plan -> plan.first().run.appending()).toList();
        try {
            appendTogether(plans, byLoad, alone);
        } finally {
            appending.forEach(RunListener.Step::close);
        }
        long took = System.nanoTime() - start;
        for (List<Delivery> load : byLoad.values()) {
            for (Delivery delivery : load) {
                if (delivery.outcome == null) {
                    delivery.run.passedOn();
                } else {
                    delivery.run.ended(delivery.outcome.result(), took);
                }
            }
        }
        return alone;
    }

    /** Each load's plan on its kept state; a load whose kept state proved ahead of the log goes to {@code alone}. */
    private List<LoadPlan> planEach(Map<String, List<Delivery>> byLoad, List<List<Delivery>> alone) {
        Map<String, LoadState> states = projections.current(byLoad.keySet());
        Instant now = clock.instant();
        List<LoadPlan> plans = new ArrayList<>();
        for (Map.Entry<String, List<Delivery>> load : byLoad.entrySet()) {
            LoadPlan plan = plan(load.getKey(), load.getValue(), states.get(load.getKey()), true, now);
            if (plan == null) {
                alone.add(load.getValue());
            } else if (!plan.isEmpty()) {
                plans.add(plan);
            }
        }
        return plans;
    }

    /**
     * The plans appended in one call. A plan written is kept; a load whose log moved meanwhile, or
     * that a unique violation refused, goes to {@code alone} to run again by itself.
     */
    private void appendTogether(List<LoadPlan> plans, Map<String, List<Delivery>> byLoad, List<List<Delivery>> alone) {
        EventStore.Unwritten unwritten = events.appendAll(plans.stream().map(LoadPlan::append).toList());
        for (LoadPlan plan : plans) {
            if (unwritten.wrote(plan.loadId())) {
                projections.remember(List.of(plan.after()));
                plan.logged(0);
                continue;
            }
            boolean behind = unwritten.behind().contains(plan.loadId());
            if (behind) {
                listener.conflict();
            }
            plan.discard(listener);
            if (behind) {
                try (RunListener.Step current = plan.first().run.current()) {
                    LOG.infof("conflict: load %s's log moved past version %d while %d of its events were decided in a batch; "
                            + "re-deciding", plan.loadId(), plan.before().version(), plan.size());
                }
            }
            alone.add(runAgain(byLoad.get(plan.loadId())));
        }
    }

    /**
     * One load's events decided in order on {@code before}, each on the state the one before left.
     * An event the state has processed ends a duplicate; one whose policy throws ends
     * {@link RunResult#FAILED}, and those behind it do not run. Null when {@code before} was kept
     * ({@code kept}) and proved ahead of the log (it is then forgotten, and the load runs on the
     * log as it is).
     */
    private LoadPlan plan(String loadId, List<Delivery> load, LoadState before, boolean kept, Instant now) {
        LoadPlan plan = new LoadPlan(loadId, before);
        for (int k = 0; k < load.size(); k++) {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("run of load " + loadId + " abandoned (deadline or shutdown)");
            }
            Delivery delivery = load.get(k);
            LoadState state = plan.after();
            if (state.hasProcessed(delivery.event.eventId())) {
                if (kept && !logged(delivery.event)) {
                    plan.discard(listener);
                    load.forEach(d -> d.outcome = null);
                    return null;
                }
                delivery.end(new RunOutcome(RunResult.DUPLICATE, state.version(), 0, "already processed"));
                continue;
            }
            try (RunListener.Step current = delivery.run.current()) {
                plan.add(delivery, Decisions.decide(state, delivery.event, policy, now), now);
            } catch (RuntimeException e) {
                delivery.end(new RunOutcome(RunResult.FAILED, state.version(), 0,
                        "policy failed: " + e.getClass().getSimpleName() + ": " + e.getMessage()));
                notRunBehind(load.subList(k + 1, load.size()), delivery.event);
                break;
            }
        }
        return plan;
    }

    /** A load's events of a batch to run again on their own, in order: all but those found already processed. */
    private static List<Delivery> runAgain(List<Delivery> load) {
        List<Delivery> again = new ArrayList<>();
        for (Delivery delivery : load) {
            if (delivery.outcome == null || !delivery.outcome.result().ack()) {
                delivery.outcome = null;
                again.add(delivery);
            }
        }
        return again;
    }

    /** Every load's events on their own, the loads on virtual threads side by side. */
    private void eachLoadOnItsOwn(Collection<List<Delivery>> loads) {
        try (ExecutorService runs = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (List<Delivery> load : loads) {
                running.add(runs.submit(() -> oneByOne(load)));
            }
            try {
                for (Future<?> load : running) {
                    load.get();
                }
            } catch (InterruptedException e) {
                runs.shutdownNow();
                Thread.currentThread().interrupt();
                throw new IllegalStateException("batch of " + loads.size() + " loads abandoned (deadline or shutdown)");
            } catch (ExecutionException e) {
                throw new IllegalStateException("a run of the batch failed outside its own handling", e.getCause());
            }
        }
    }

    /** One load's events on their own, in order, up to the first that does not end (the rest do not run). */
    private void oneByOne(List<Delivery> load) {
        for (int k = 0; k < load.size(); k++) {
            Delivery delivery = load.get(k);
            alone(delivery);
            if (!delivery.outcome.result().ack()) {
                notRunBehind(load.subList(k + 1, load.size()), delivery.event);
                return;
            }
        }
    }

    /** The events behind one of their load that did not end: given back without running, their order kept. */
    private static void notRunBehind(List<Delivery> behind, InboundEvent stopped) {
        behind.forEach(d -> d.end(new RunOutcome(RunResult.NOT_RUN, -1, 0,
                "behind " + stopped.eventId() + " of the same load, which did not end")));
    }

    /** One event in a plan of its own, under the load lock, again after each conflict. */
    private void alone(Delivery delivery) {
        long start = System.nanoTime();
        delivery.run = listener.started(delivery.event);
        delivery.outcome = null;
        try (RunListener.Step current = delivery.run.current()) {
            Optional<LoadLock.Lease> lease = lock.tryLock(delivery.event.loadId());
            if (lease.isEmpty()) {
                delivery.end(new RunOutcome(RunResult.LOCKED, -1, 0, "another run holds the load's lock"));
            } else {
                try (LoadLock.Lease held = lease.get()) {
                    decideAndAppend(delivery);
                }
            }
        } catch (RuntimeException e) {
            delivery.end(new RunOutcome(RunResult.FAILED, -1, 0, e.getClass().getSimpleName() + ": " + e.getMessage()));
        } finally {
            delivery.run.ended(delivery.outcome == null ? RunResult.FAILED : delivery.outcome.result(), System.nanoTime() - start);
        }
    }

    private void decideAndAppend(Delivery delivery) {
        int conflicts = 0;
        long version = 0;
        for (int attempt = 0; attempt <= conflictRetries; attempt++) {
            Instant now = clock.instant();
            LoadPlan plan = planAlone(delivery, now);
            version = plan.before().version();
            if (delivery.outcome != null) {
                delivery.end(withConflicts(delivery.outcome, conflicts));
                return;
            }
            Appended appended;
            try {
                appended = tryAppend(plan, conflicts);
            } catch (DuplicateActionKeyException e) {
                plan = afterDuplicateKey(delivery, plan, e, now);
                appended = tryAppend(plan, conflicts);
            }
            if (appended == Appended.LOGGED) {
                return;
            }
            if (appended == Appended.DUPLICATE) {
                delivery.end(new RunOutcome(RunResult.DUPLICATE, version, conflicts, "already processed"));
                return;
            }
            conflicts++;
            conflict(plan, delivery.event, conflicts);
        }
        delivery.end(new RunOutcome(RunResult.CONFLICT_RETRIED, version, conflicts,
                conflicts + " conflicts in a row: left for redelivery"));
    }

    /** The event's plan on the load's kept state, or on its log when what was kept proved ahead of it (and is forgotten). */
    private LoadPlan planAlone(Delivery delivery, Instant now) {
        String loadId = delivery.event.loadId();
        LoadPlan plan = plan(loadId, List.of(delivery), projections.current(loadId), true, now);
        return plan != null ? plan : plan(loadId, List.of(delivery), projections.current(loadId), false, now);
    }

    /** How an append alone went. */
    private enum Appended { LOGGED, CONFLICT, DUPLICATE }

    /** Appends {@code plan} alone: logged (its events end decided), or what stopped it. */
    private Appended tryAppend(LoadPlan plan, int conflicts) {
        try {
            appendAlone(plan);
            plan.logged(conflicts);
            return Appended.LOGGED;
        } catch (ConcurrencyConflictException e) {
            return Appended.CONFLICT;
        } catch (DuplicateEntryException e) {
            return Appended.DUPLICATE;
        }
    }

    /** The plan that replaces one whose decision repeated action keys (a decision bug): one Hero task keyed by the event. */
    private LoadPlan afterDuplicateKey(Delivery delivery, LoadPlan plan, DuplicateActionKeyException e, Instant now) {
        listener.duplicateActionKey();
        LOG.errorf("decision bug: the decision on %s of load %s repeats action keys %s; decided again as one Hero task",
                delivery.event.eventId(), delivery.event.loadId(), e.outboxIds());
        LoadPlan fallback = new LoadPlan(delivery.event.loadId(), plan.before());
        fallback.add(delivery, Decisions.afterDuplicateKey(delivery.event, e.outboxIds(), now), now);
        return fallback;
    }

    private void appendAlone(LoadPlan plan) {
        try (RunListener.Step appending = plan.first().run.appending()) {
            EventStore.Append append = plan.append();
            events.append(append.loadId(), append.entries(), append.expectedVersion(), append.outbox());
        }
        projections.remember(List.of(plan.after()));
    }

    /** The plan lost the race for its load: what is kept is dropped (it may be ahead of the log, not only behind). */
    private void conflict(LoadPlan plan, InboundEvent event, int conflicts) {
        listener.conflict();
        plan.discard(listener);
        projections.forget(event.loadId());
        LOG.infof("conflict: load %s's log moved past version %d while %s was decided (conflict %d); re-deciding",
                event.loadId(), plan.before().version(), event.eventId(), conflicts);
    }

    private static RunOutcome withConflicts(RunOutcome outcome, int conflicts) {
        return new RunOutcome(outcome.result(), outcome.version(), conflicts, outcome.reason());
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

    /** One delivered event of a run: the run as the listener follows it, and how it ended (null until it has). */
    static final class Delivery {

        private final InboundEvent event;
        private RunListener.Run run;
        private RunOutcome outcome;

        private Delivery(InboundEvent event) {
            this.event = event;
        }

        InboundEvent event() {
            return event;
        }

        RunListener.Run run() {
            return run;
        }

        RunOutcome outcome() {
            return outcome;
        }

        void end(RunOutcome outcome) {
            this.outcome = outcome;
        }
    }

    /** The collaborators of a {@link LoadRun}, with defaults for all but the store, the policy and the clock. */
    public static final class Builder {

        private final EventStore events;
        private final DecisionPolicy policy;
        private final Clock clock;
        private LoadLock lock = LoadLock.NONE;
        private int conflictRetries = 5;
        private int projectionCache = 10_000;
        private WorkerMetrics metrics;
        private Traces traces = Traces.NONE;
        private RunListener listener;

        private Builder(EventStore events, DecisionPolicy policy, Clock clock) {
            this.events = Objects.requireNonNull(events, "events");
            this.policy = Objects.requireNonNull(policy, "policy");
            this.clock = Objects.requireNonNull(clock, "clock");
        }

        /** The per-load lock a run takes first (default none: the log's version check alone keeps runs apart). */
        public Builder lock(LoadLock lock) {
            this.lock = Objects.requireNonNull(lock, "lock");
            return this;
        }

        /** How many times an event is re-decided after a conflict before its message goes back (default 5). */
        public Builder conflictRetries(int conflictRetries) {
            if (conflictRetries < 0) {
                throw new IllegalArgumentException("conflict retries must be >= 0, got " + conflictRetries);
            }
            this.conflictRetries = conflictRetries;
            return this;
        }

        /** How many loads' projections to keep between runs (default 10,000; 0: read each load's whole log per run). */
        public Builder projectionCache(int projectionCache) {
            this.projectionCache = projectionCache;
            return this;
        }

        /** Where the runs' metrics go (default: a registry of their own, read by no one). */
        public Builder metrics(WorkerMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /** Where each event's run span goes (default: none of its own; an event's trace still reaches its outbox rows). */
        public Builder traces(Traces traces) {
            this.traces = Objects.requireNonNull(traces, "traces");
            return this;
        }

        /** A listener in place of the metrics and traces above. */
        public Builder listener(RunListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public LoadRun build() {
            return new LoadRun(this);
        }
    }
}
