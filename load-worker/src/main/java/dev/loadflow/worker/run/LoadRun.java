package dev.loadflow.worker.run;

import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.policy.Decision;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.model.policy.DeterministicFilter;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.store.eventlog.ConcurrencyConflictException;
import dev.loadflow.store.eventlog.DuplicateActionKeyException;
import dev.loadflow.store.eventlog.DuplicateEntryException;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.OutboxMessage;
import dev.loadflow.worker.lock.LoadLock;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One run per delivered event (DESIGN.md "Load worker run"): read the load's log, project it,
 * filter deterministically or ask the policy, and append the event, its decision and the
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

    private final EventStore events;
    private final DecisionPolicy policy;
    private final Clock clock;
    private final LoadLock lock;
    private final int conflictRetries;
    private final WorkerMetrics metrics;

    public LoadRun(EventStore events, DecisionPolicy policy, Clock clock, LoadLock lock, int conflictRetries,
                   WorkerMetrics metrics) {
        if (conflictRetries < 0) {
            throw new IllegalArgumentException("conflict retries must be >= 0, got " + conflictRetries);
        }
        this.events = events;
        this.policy = policy;
        this.clock = clock;
        this.lock = lock;
        this.conflictRetries = conflictRetries;
        this.metrics = metrics;
    }

    /** Processes one delivered event; throws when the run fails (the caller gives the message back). */
    public RunOutcome process(InboundEvent event) {
        long start = System.nanoTime();
        RunResult result = RunResult.FAILED;
        try {
            Optional<LoadLock.Lease> lease = lock.tryLock(event.loadId());
            if (lease.isEmpty()) {
                result = RunResult.LOCKED;
                return new RunOutcome(RunResult.LOCKED, -1, 0, "another run holds the load's lock");
            }
            try (LoadLock.Lease held = lease.get()) {
                RunOutcome outcome = decideAndAppend(event);
                result = outcome.result();
                return outcome;
            }
        } finally {
            metrics.run(result, System.nanoTime() - start);
        }
    }

    private RunOutcome decideAndAppend(InboundEvent event) {
        int conflicts = 0;
        long version = 0;
        for (int attempt = 0; attempt <= conflictRetries; attempt++) {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("run for " + event.eventId() + " abandoned (deadline or shutdown)");
            }
            LoadLog log = events.read(event.loadId());
            version = log.version();
            LoadState state = LoadState.project(log);
            if (state.hasProcessed(event.eventId())) {
                return new RunOutcome(RunResult.DUPLICATE, version, conflicts, "already processed");
            }
            Instant now = clock.instant();
            DecisionRecorded decision = DeterministicFilter.filter(event, state)
                    .map(reason -> DecisionRecorded.filtered(event, now, reason))
                    .orElseGet(() -> record(event, policy.decide(event, state, now), now));
            try {
                long appended = append(event, decision, version, now);
                return new RunOutcome(decision.filtered() ? RunResult.FILTERED : RunResult.DECIDED, appended,
                        conflicts, decision.reason());
            } catch (ConcurrencyConflictException e) {
                conflicts++;
                metrics.conflict();
            } catch (DuplicateEntryException e) {
                return new RunOutcome(RunResult.DUPLICATE, version, conflicts, "already processed");
            } catch (DuplicateActionKeyException e) {
                DecisionRecorded fallback = record(event, Decision.heroTaskAfterDuplicateKey(event, e.outboxIds()), now);
                try {
                    return new RunOutcome(RunResult.DECIDED, append(event, fallback, version, now), conflicts,
                            fallback.reason());
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

    private static DecisionRecorded record(InboundEvent event, Decision decision, Instant now) {
        return DecisionRecorded.decided(event, now, decision.actions(), decision.needsHeroTask(), decision.reason(),
                decision.closedAsks());
    }

    private long append(InboundEvent event, DecisionRecorded decision, long version, Instant now) {
        List<OutboxMessage> outbox = decision.actions().stream()
                .map(action -> OutboxMessage.of(event.loadId(), action, now, event.correlationId(), event.eventId()))
                .toList();
        return events.append(event.loadId(), List.of(event, decision), version, outbox);
    }
}
