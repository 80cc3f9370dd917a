package dev.loadflow.worker.run;

import dev.loadflow.service.store.StoreProducers;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.policy.Decision;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.outbox.OutboxMessage;
import dev.loadflow.testing.PgBackend;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LoadRun#processAll}: a batch of events of different loads ends, event by event,
 * exactly as each would alone, with one read and one append when nothing goes wrong.
 */
class BatchRunTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("batch_run");

    private static final Instant T = Instant.parse("2026-11-30T07:00:00Z");

    private final Clock clock = Clock.systemUTC();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final WorkerMetrics metrics = new WorkerMetrics(registry);
    private EventStore events;

    @BeforeEach
    void setUp() {
        PG.database().truncateAll();
        events = StoreProducers.storesOn(PG.pool(), clock, PG.wakeups(), PG.database().citus()).eventStore();
    }

    private static InboundEvent reply(String load, String eventId) {
        return new InboundEvent(eventId, load, T, T, "c-" + eventId, null, new EventPayload.InboundSms("+15550100", "hi"));
    }

    /** A policy that asks for an ETA, keyed by the event, so every decision has an outbox row. */
    private static Decision ask(InboundEvent event) {
        return new Decision(List.of(new Action.SendSms(AskId.of("eta_request", event.eventId()), 1, "+15550100", "ETA?")),
                false, "asked", List.of());
    }

    /** A run on the log whose policy asks for an ETA ({@link #ask}), with up to 5 conflicts in a row. */
    private LoadRun asking() {
        return LoadRun.builder(events, (event, state, now) -> ask(event), clock).metrics(metrics).build();
    }

    @Test
    void aBatchOfLoadsIsDecidedWithOneReadAndOneAppend() {
        CountingStore counting = new CountingStore(events);
        LoadRun run = LoadRun.builder(counting, (event, state, now) -> ask(event), clock).metrics(metrics).build();
        List<InboundEvent> batch = List.of(reply(newLoadId(), "a"), reply(newLoadId(), "b"), reply(newLoadId(), "c"));

        List<RunOutcome> outcomes = run.processAll(batch);

        assertThat(outcomes).extracting(RunOutcome::result).containsOnly(RunResult.DECIDED);
        assertThat(outcomes).extracting(RunOutcome::version).containsOnly(2L);
        assertThat(counting.reads).hasValue(1);
        assertThat(counting.appends).hasValue(1);
        for (InboundEvent event : batch) {
            LoadLog log = events.read(event.loadId());
            assertThat(log.entries()).extracting(e -> e.entry().entryId()).containsExactly(event.eventId(), "dec:" + event.eventId());
            assertThat(PG.database().rows("SELECT correlation_id, causation_id FROM outbox WHERE load_id = ?", event.loadId()))
                    .as("the row carries its event's correlation id and names the event as its cause").singleElement()
                    .satisfies(row -> {
                        assertThat(row.get("correlation_id")).isEqualTo(event.correlationId());
                        assertThat(row.get("causation_id")).isEqualTo(event.eventId());
                    });
        }
        assertThat(registry.get("loadflow.worker.runs").tag("result", "decided").counter().count()).isEqualTo(3);
    }

    /**
     * A run of one busy load's queue in one batch: each event decided on the state the one
     * before left (the policy sees the earlier events of the batch logged), all appended with one
     * read and one append, in order.
     */
    @Test
    void severalEventsOfOneLoadAreDecidedInOrderWithOneReadAndOneAppend() {
        CountingStore counting = new CountingStore(events);
        List<Long> versionsSeen = new java.util.concurrent.CopyOnWriteArrayList<>();
        LoadRun run = LoadRun.builder(counting, (event, state, now) -> {
            versionsSeen.add(state.version());
            return ask(event);
        }, clock).metrics(metrics).build();
        String busy = newLoadId();
        String other = newLoadId();

        List<RunOutcome> outcomes = run.processAll(List.of(reply(busy, "p1"), reply(other, "o1"), reply(busy, "p2"),
                reply(busy, "p3")));

        assertThat(outcomes).extracting(RunOutcome::result).containsOnly(RunResult.DECIDED);
        assertThat(outcomes).extracting(RunOutcome::version).containsExactly(2L, 2L, 4L, 6L);
        assertThat(versionsSeen).as("each decided on the state the one before left").containsExactly(0L, 2L, 4L, 0L);
        assertThat(counting.reads).hasValue(1);
        assertThat(counting.appends).hasValue(1);
        assertThat(events.read(busy).entries()).extracting(e -> e.entry().entryId())
                .containsExactly("p1", "dec:p1", "p2", "dec:p2", "p3", "dec:p3");
        assertThat(PG.database().count("SELECT count(*) FROM outbox WHERE load_id = '" + busy + "'")).isEqualTo(3);
    }

    /**
     * The second of three events of a load throws in its policy: the first is logged, the second
     * fails and the third does not run (it must not be decided before the second), while the
     * other load of the batch is logged as usual.
     */
    @Test
    void nothingOfALoadRunsBehindAnEventThatFailed() {
        String busy = newLoadId();
        String other = newLoadId();
        LoadRun run = LoadRun.builder(events, (event, state, now) -> {
            if (event.eventId().equals("p2")) {
                throw new IllegalStateException("no SOP for this client yet");
            }
            return ask(event);
        }, clock).metrics(metrics).build();

        List<RunOutcome> outcomes = run.processAll(List.of(reply(busy, "p1"), reply(busy, "p2"), reply(busy, "p3"),
                reply(other, "o1")));

        assertThat(outcomes).extracting(RunOutcome::result)
                .containsExactly(RunResult.DECIDED, RunResult.FAILED, RunResult.NOT_RUN, RunResult.DECIDED);
        assertThat(events.read(busy).entries()).extracting(e -> e.entry().entryId()).containsExactly("p1", "dec:p1");
        assertThat(events.read(other).version()).isEqualTo(2);
    }

    /** A load's log moved under a batch that held several of its events: they run again on their own, in order. */
    @Test
    void aBusyLoadWhoseLogMovedRunsItsEventsAgainInOrder() {
        String busy = newLoadId();
        AtomicInteger decisions = new AtomicInteger();
        LoadRun run = LoadRun.builder(events, (event, state, now) -> {
            if (decisions.getAndIncrement() == 0) {
                // another instance logs on the load while this batch decides
                events.append(busy, List.of(reply(busy, "elsewhere")), state.version(), List.of());
            }
            return ask(event);
        }, clock).metrics(metrics).build();

        List<RunOutcome> outcomes = run.processAll(List.of(reply(busy, "p1"), reply(busy, "p2")));

        assertThat(outcomes).extracting(RunOutcome::result).containsOnly(RunResult.DECIDED);
        assertThat(outcomes).extracting(RunOutcome::version).containsExactly(3L, 5L);
        assertThat(registry.get("loadflow.worker.conflicts").counter().count()).as("the batch's append was behind").isEqualTo(1);
        assertThat(events.read(busy).entries()).extracting(e -> e.entry().entryId())
                .containsExactly("elsewhere", "p1", "dec:p1", "p2", "dec:p2");
    }

    @Test
    void aLoadSeenBeforeIsNotReadAgainButWhatOthersLoggedSinceIs() {
        LoadRun run = asking();
        String a = newLoadId();
        String b = newLoadId();
        run.processAll(List.of(reply(a, "a1"), reply(b, "b1")));
        // another worker instance logs an event on b meanwhile
        events.append(b, List.of(reply(b, "elsewhere")), 2, List.of());

        List<RunOutcome> outcomes = run.processAll(List.of(reply(a, "a1"), reply(b, "elsewhere"), reply(newLoadId(), "c1")));

        assertThat(outcomes).extracting(RunOutcome::result)
                .containsExactly(RunResult.DUPLICATE, RunResult.DUPLICATE, RunResult.DECIDED);
        assertThat(outcomes.get(1).version()).as("b's projection caught up with the other writer").isEqualTo(3);
        assertThat(run.processAll(List.of(reply(b, "b2"), reply(a, "a2")))).extracting(RunOutcome::version)
                .containsExactly(5L, 4L);
        assertThat(events.read(b).entries()).extracting(e -> e.entry().entryId())
                .containsExactly("b1", "dec:b1", "elsewhere", "b2", "dec:b2");
    }

    @Test
    void anEventAlreadyLoggedIsADuplicateAndTheRestOfTheBatchGoesOn() {
        LoadRun run = asking();
        InboundEvent seen = reply(newLoadId(), "seen");
        run.process(seen);
        InboundEvent fresh = reply(newLoadId(), "fresh");

        List<RunOutcome> outcomes = run.processAll(List.of(seen, fresh));

        assertThat(outcomes).extracting(RunOutcome::result).containsExactly(RunResult.DUPLICATE, RunResult.DECIDED);
        assertThat(events.read(seen.loadId()).version()).isEqualTo(2);
        assertThat(events.read(fresh.loadId()).version()).isEqualTo(2);
    }

    @Test
    void aPolicyThatThrowsFailsOnlyItsOwnEventAndIsCalledOnce() {
        AtomicInteger badCalls = new AtomicInteger();
        DecisionPolicy flaky = (event, state, now) -> {
            if (event.eventId().equals("bad")) {
                badCalls.incrementAndGet();
                throw new IllegalStateException("policy blew up");
            }
            return ask(event);
        };
        LoadRun run = LoadRun.builder(events, flaky, clock).metrics(metrics).build();
        InboundEvent bad = reply(newLoadId(), "bad");
        InboundEvent good = reply(newLoadId(), "good");

        List<RunOutcome> outcomes = run.processAll(List.of(bad, good));

        assertThat(outcomes.get(0).result()).isEqualTo(RunResult.FAILED);
        assertThat(outcomes.get(0).reason()).contains("policy blew up");
        assertThat(outcomes.get(1).result()).isEqualTo(RunResult.DECIDED);
        assertThat(badCalls).hasValue(1);
        assertThat(events.read(bad.loadId()).version()).as("nothing half-written").isZero();
        assertThat(events.read(good.loadId()).version()).isEqualTo(2);
    }

    @Test
    void aLogThatMovedUnderTheBatchSendsEveryEventThroughItsOwnRunAndLosesNothing() {
        String moved = newLoadId();
        InboundEvent interloper = reply(moved, "interloper");
        // another writer appends to one load between the batch's read and its append
        EventStore racing = new CountingStore(events) {
            @Override
            public Map<String, List<RecordedEntry>> readAfter(Map<String, Long> versions) {
                Map<String, List<RecordedEntry>> newer = super.readAfter(versions);
                if (versions.size() > 1) {
                    events.append(moved, List.of(interloper), 0, List.of());
                }
                return newer;
            }
        };
        LoadRun run = LoadRun.builder(racing, (event, state, now) -> ask(event), clock).metrics(metrics).build();
        InboundEvent mine = reply(moved, "mine");
        InboundEvent other = reply(newLoadId(), "other");

        List<RunOutcome> outcomes = run.processAll(List.of(mine, other));

        assertThat(outcomes).extracting(RunOutcome::result).containsExactly(RunResult.DECIDED, RunResult.DECIDED);
        assertThat(events.read(moved).entries()).extracting(e -> e.entry().entryId())
                .containsExactly("interloper", "mine", "dec:mine");
        assertThat(events.read(other.loadId()).version()).isEqualTo(2);
        assertThat(registry.get("loadflow.worker.conflicts").counter().count())
                .as("the batched run's conflict is counted, as a lone run's is").isEqualTo(1);
    }

    /**
     * The database loses commits it had acknowledged (a failover to a standby that had not
     * received them): here, the load's entries and rows deleted behind the worker's back. Its
     * projections are then ahead of the log. A redelivered event the projection has processed is
     * checked against the log, not acked as a duplicate of entries that are gone; a new event's
     * append conflicts once, and the run reads the whole log again instead of conflicting until
     * the worker restarts.
     */
    @Test
    void aWorkerWhoseLogLostWhatItAppendedRunsOnTheLogAsItIs() {
        LoadRun run = asking();
        String redelivered = newLoadId();
        String next = newLoadId();
        run.processAll(List.of(reply(redelivered, "r1"), reply(next, "n1")));
        PG.database().execute("DELETE FROM outbox WHERE load_id IN ('%1$s', '%2$s'); DELETE FROM event_log WHERE load_id IN ('%1$s', '%2$s')"
                .formatted(redelivered, next));

        List<RunOutcome> outcomes = run.processAll(List.of(reply(redelivered, "r1"), reply(next, "n2")));

        assertThat(outcomes).extracting(RunOutcome::result).containsExactly(RunResult.DECIDED, RunResult.DECIDED);
        assertThat(events.read(redelivered).entries()).extracting(e -> e.entry().entryId())
                .as("logged again, not acked as already processed").containsExactly("r1", "dec:r1");
        assertThat(events.read(next).entries()).extracting(e -> e.entry().entryId()).containsExactly("n2", "dec:n2");
        assertThat(run.process(reply(next, "n3")).version()).as("and on from there").isEqualTo(4);
    }

    @Test
    void aDuplicateActionKeyInABatchStillEndsAsOneHeroTask() {
        AskId fixed = AskId.of("eta_request", "always_the_same");
        DecisionPolicy faulty = (event, state, now) -> new Decision(
                List.of(new Action.SendSms(fixed, 1, "+15550100", "ETA?")), false, "faulty", List.of());
        LoadRun run = LoadRun.builder(events, faulty, clock).metrics(metrics).build();
        String load = newLoadId();
        run.process(reply(load, "first"));
        InboundEvent again = reply(load, "again");
        InboundEvent other = reply(newLoadId(), "other");

        List<RunOutcome> outcomes = run.processAll(List.of(again, other));

        assertThat(outcomes).extracting(RunOutcome::result).containsExactly(RunResult.DECIDED, RunResult.DECIDED);
        DecisionRecorded fallback = (DecisionRecorded) events.read(load).entries().get(3).entry();
        assertThat(fallback.needsHeroTask()).isTrue();
        assertThat(fallback.reason()).startsWith("duplicate action key");
        assertThat(events.read(other.loadId()).version()).isEqualTo(2);
    }

    /** Counts the round trips a run makes, passing everything through. */
    private static class CountingStore implements EventStore {
        final AtomicInteger reads = new AtomicInteger();
        final AtomicInteger appends = new AtomicInteger();
        private final EventStore delegate;

        CountingStore(EventStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public LoadLog read(String loadId) {
            reads.incrementAndGet();
            return delegate.read(loadId);
        }

        @Override
        public Map<String, List<RecordedEntry>> readAfter(Map<String, Long> versions) {
            reads.incrementAndGet();
            return delegate.readAfter(versions);
        }

        @Override
        public boolean contains(String loadId, String entryId) {
            return delegate.contains(loadId, entryId);
        }

        @Override
        public long append(String loadId, List<LogEntry> entries, long expectedVersion, List<OutboxMessage> outbox) {
            appends.incrementAndGet();
            return delegate.append(loadId, entries, expectedVersion, outbox);
        }

        @Override
        public Unwritten appendAll(List<Append> batch) {
            appends.incrementAndGet();
            return delegate.appendAll(batch);
        }
    }

    /**
     * Another writer appends to the load's log while every decision is made (a real race, not a
     * stub): each append finds the log moved, the run decides again up to its conflict retries,
     * then leaves the event for redelivery having written nothing of it.
     */
    @Test
    void aRunThatConflictsOnEveryAttemptIsLeftForRedeliveryAndWritesNothing() {
        String load = newLoadId();
        AtomicInteger decisions = new AtomicInteger();
        LoadRun run = LoadRun.builder(events, (event, state, now) -> {
            int n = decisions.incrementAndGet();
            InboundEvent other = reply(load, "other_" + n);
            events.append(load, List.of(other), events.read(load).version(), List.of());
            return ask(event);
        }, clock).conflictRetries(2).metrics(metrics).build();

        RunOutcome outcome = run.process(reply(load, "contested"));

        assertThat(outcome.result()).isEqualTo(RunResult.CONFLICT_RETRIED);
        assertThat(outcome.result().ack()).as("given back, not acked").isFalse();
        assertThat(outcome.conflicts()).isEqualTo(3);
        assertThat(decisions).as("decided once per attempt: the first and two retries").hasValue(3);
        assertThat(events.read(load).entries()).extracting(e -> e.entry().entryId())
                .containsExactly("other_1", "other_2", "other_3");
        assertThat(PG.database().count("SELECT count(*) FROM outbox WHERE load_id = '" + load + "'")).isZero();
        assertThat(registry.get("loadflow.worker.conflicts").counter().count()).isEqualTo(3);
        assertThat(registry.get("loadflow.worker.runs").tag("result", "conflict_retried").counter().count()).isOne();
    }
}
