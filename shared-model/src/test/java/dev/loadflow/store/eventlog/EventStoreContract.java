package dev.loadflow.store.eventlog;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxMessage;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.loadflow.testing.Fixtures.decision;
import static dev.loadflow.testing.Fixtures.etaAsk;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.testing.Fixtures.outboxRows;
import static dev.loadflow.testing.Fixtures.ping;
import static dev.loadflow.testing.Fixtures.sms;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@link EventStore} contract (docs/design.md "Store contracts", ADR 0003 "Optimistic
 * concurrency on the log"). Every backend runs these tests unchanged.
 */
public abstract class EventStoreContract {

    protected static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");

    protected final FakeClock clock = FakeClock.at(T0);
    private EventStore store;
    private Outbox outbox;

    protected abstract EventStore eventStore(Clock clock);

    /** The outbox of the same backend, to see the rows an append wrote. */
    protected abstract Outbox outbox(Clock clock);

    /** Empties the backend: each test starts from nothing. */
    protected abstract void reset();

    @BeforeEach
    final void setUp() {
        reset();
        store = eventStore(clock);
        outbox = outbox(clock);
    }

    @Test
    final void aNewLoadHasAnEmptyLogAtVersionZero() {
        LoadLog log = store.read(newLoadId());

        assertThat(log.version()).isZero();
        assertThat(log.entries()).isEmpty();
    }

    @Test
    final void appendedEntriesReadBackInOrderWithTheirSeqAndVersion() {
        String load = newLoadId();
        InboundEvent ping = ping(load, "ping_0700", T0);
        DecisionRecorded decision = decision(ping, T0.plusSeconds(60), etaAsk(ping, T0.plusSeconds(60)));
        clock.advance(java.time.Duration.ofSeconds(61));

        long version = store.append(load, List.of(ping, decision), 0, List.of());

        LoadLog log = store.read(load);
        assertThat(version).isEqualTo(2);
        assertThat(log.version()).isEqualTo(2);
        assertThat(log.entries()).extracting(RecordedEntry::seq).containsExactly(1L, 2L);
        assertThat(log.entries()).extracting(RecordedEntry::entry).containsExactly(ping, decision);
        assertThat(log.entries()).extracting(RecordedEntry::recordedAt).containsOnly(clock.instant());
    }

    @Test
    final void appendWritesTheOutboxRowsWithTheLogInOneGo() {
        String load = newLoadId();
        InboundEvent ping = ping(load, "ping_0700", T0);
        List<Action> actions = etaAsk(ping, T0);

        store.append(load, List.of(ping, decision(ping, T0, actions)), 0, outboxRows(load, actions, T0, ping.eventId()));

        OutboxRow sms = outbox.find(load + "/ask:eta_request:ping_0700/1/send_sms").orElseThrow();
        assertThat(sms.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(sms.availableAt()).isEqualTo(T0);
        assertThat(sms.createdAt()).isEqualTo(clock.instant());
        assertThat(sms.attempts()).isZero();
        assertThat(sms.causationId()).isEqualTo("ping_0700");
        assertThat(outbox.find(load + "/ask:eta_request:ping_0700/1/set_timer")).isPresent();
    }

    @Test
    final void aStaleExpectedVersionIsAConflictAndWritesNothing() {
        String load = newLoadId();
        InboundEvent first = ping(load, "ping_0700", T0);
        store.append(load, List.of(first, decision(first, T0, List.of())), 0, List.of());
        InboundEvent second = ping(load, "ping_0705", T0);
        List<Action> actions = etaAsk(second, T0);

        assertThatThrownBy(() -> store.append(load, List.of(second, decision(second, T0, actions)), 1,
                outboxRows(load, actions, T0, second.eventId())))
                .isInstanceOf(ConcurrencyConflictException.class);

        assertThat(store.read(load).version()).isEqualTo(2);
        assertThat(store.read(load).contains("ping_0705")).isFalse();
        assertThat(outbox.find(load + "/ask:eta_request:ping_0705/1/send_sms")).isEmpty();
    }

    @Test
    final void anExpectedVersionAheadOfTheLogIsAConflictAndWritesNothing() {
        String load = newLoadId();
        InboundEvent ping = ping(load, "ping_0700", T0);

        assertThatThrownBy(() -> store.append(load, List.of(ping), 5, List.of()))
                .isInstanceOf(ConcurrencyConflictException.class);

        assertThat(store.read(load).version()).isZero();
    }

    @Test
    final void aDuplicateEntryIsAlreadyProcessedAndRollsBackEverything() {
        String load = newLoadId();
        InboundEvent ping = ping(load, "ping_0700", T0);
        store.append(load, List.of(ping, decision(ping, T0, List.of())), 0, List.of());
        InboundEvent redelivered = ping(load, "ping_0700", T0);
        List<Action> actions = etaAsk(redelivered, T0);

        assertThatThrownBy(() -> store.append(load, List.of(redelivered, decision(redelivered, T0, actions)), 2,
                outboxRows(load, actions, T0, "ping_0700")))
                .isInstanceOf(DuplicateEntryException.class)
                .isNotInstanceOf(DuplicateActionKeyException.class);

        assertThat(store.read(load).version()).isEqualTo(2);
        assertThat(outbox.find(load + "/ask:eta_request:ping_0700/1/send_sms")).isEmpty();
    }

    @Test
    final void aDuplicateActionKeyIsADecisionBugAndRollsBackEverything() {
        String load = newLoadId();
        InboundEvent ping = ping(load, "ping_0700", T0);
        List<Action> actions = etaAsk(ping, T0);
        store.append(load, List.of(ping, decision(ping, T0, actions)), 0, outboxRows(load, actions, T0, "ping_0700"));
        InboundEvent next = ping(load, "ping_0705", T0);
        // a faulty decision that repeats the first ping's action keys
        List<OutboxMessage> repeated = outboxRows(load, actions, T0, "ping_0705");

        assertThatThrownBy(() -> store.append(load, List.of(next, decision(next, T0, actions)), 2, repeated))
                .isInstanceOf(DuplicateActionKeyException.class)
                .isNotInstanceOf(DuplicateEntryException.class);

        LoadLog log = store.read(load);
        assertThat(log.version()).isEqualTo(2);
        assertThat(log.contains("ping_0705")).isFalse();
        assertThat(log.contains("dec:ping_0705")).isFalse();
        assertThat(outbox.find(load + "/ask:eta_request:ping_0700/1/send_sms").orElseThrow().causationId())
                .isEqualTo("ping_0700");
    }

    @Test
    final void twoAppendersAtTheSameVersionExactlyOneWins() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 25; round++) {
                String load = newLoadId();
                CyclicBarrier start = new CyclicBarrier(2);
                List<Future<Boolean>> results = new ArrayList<>();
                for (String eventId : List.of("sms_a", "sms_b")) {
                    results.add(pool.submit(() -> {
                        InboundEvent event = sms(load, eventId, T0, "on my way");
                        start.await();
                        try {
                            store.append(load, List.of(event, decision(event, T0, List.of())), 0, List.of());
                            return true;
                        } catch (ConcurrencyConflictException e) {
                            return false;
                        }
                    }));
                }
                int wins = 0;
                for (Future<Boolean> result : results) {
                    wins += result.get() ? 1 : 0;
                }
                assertThat(wins).as("winners of round %d", round).isEqualTo(1);
                assertThat(store.read(load).version()).isEqualTo(2);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    final void aThousandConcurrentAppendsLoseNothingAndDoubleNothing() throws Exception {
        int loads = 10;
        int eventsPerLoad = 100;
        List<String> loadIds = new ArrayList<>();
        for (int i = 0; i < loads; i++) {
            loadIds.add(newLoadId());
        }
        AtomicInteger conflicts = new AtomicInteger();
        Set<String> duplicates = ConcurrentHashMap.newKeySet();
        List<Callable<Void>> appenders = new ArrayList<>();
        // every event is appended by two racing appenders, as a redelivery would
        for (int copy = 0; copy < 2; copy++) {
            for (String load : loadIds) {
                for (int e = 0; e < eventsPerLoad; e++) {
                    String eventId = "evt_" + e;
                    appenders.add(() -> {
                        InboundEvent event = sms(load, eventId, T0, "reply " + eventId);
                        while (true) {
                            LoadLog log = store.read(load);
                            if (log.contains(eventId)) {
                                duplicates.add(load + "/" + eventId);
                                return null;
                            }
                            try {
                                store.append(load, List.of(event, decision(event, T0, List.of())), log.version(), List.of());
                                return null;
                            } catch (ConcurrencyConflictException conflict) {
                                conflicts.incrementAndGet();
                            } catch (DuplicateEntryException duplicate) {
                                duplicates.add(load + "/" + eventId);
                                return null;
                            }
                        }
                    });
                }
            }
        }
        java.util.Collections.shuffle(appenders, new java.util.Random(42));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (Future<Void> done : pool.invokeAll(appenders)) {
                done.get();
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(appenders).hasSize(2 * loads * eventsPerLoad);
        for (String load : loadIds) {
            LoadLog log = store.read(load);
            assertThat(log.version()).isEqualTo(2L * eventsPerLoad);
            assertThat(log.entries()).extracting(RecordedEntry::seq)
                    .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, 2L * eventsPerLoad).boxed().toList());
            Set<String> ids = new HashSet<>();
            log.entries().forEach(e -> ids.add(e.entry().entryId()));
            assertThat(ids).hasSize(2 * eventsPerLoad);
            // each event is followed by its own decision: no run interleaved with another
            for (int i = 0; i < log.entries().size(); i += 2) {
                LogEntry event = log.entries().get(i).entry();
                assertThat(log.entries().get(i + 1).entry().causationId()).isEqualTo(event.entryId());
            }
        }
        assertThat(duplicates).hasSize(loads * eventsPerLoad);
        assertThat(conflicts.get()).as("the race produced conflicts to resolve").isPositive();
    }

    @Test
    final void readAfterReturnsOnlyTheEntriesAfterEachLoadsVersion() {
        String a = newLoadId();
        String b = newLoadId();
        String fresh = newLoadId();
        InboundEvent pingA = ping(a, "ping_0700", T0);
        InboundEvent pingB = ping(b, "ping_0701", T0);
        InboundEvent laterB = ping(b, "ping_0702", T0);
        store.append(a, List.of(pingA, decision(pingA, T0, List.of())), 0, List.of());
        store.append(b, List.of(pingB), 0, List.of());
        store.append(b, List.of(laterB), 1, List.of());

        var newer = store.readAfter(java.util.Map.of(a, 0L, b, 1L, fresh, 0L));

        assertThat(newer).containsOnlyKeys(a, b, fresh);
        assertThat(newer.get(a)).extracting(RecordedEntry::seq).containsExactly(1L, 2L);
        assertThat(newer.get(a)).extracting(RecordedEntry::entry).containsExactly(pingA, decision(pingA, T0, List.of()));
        assertThat(newer.get(b)).extracting(RecordedEntry::entry).containsExactly(laterB);
        assertThat(newer.get(fresh)).isEmpty();
        assertThat(store.readAfter(java.util.Map.of(b, 2L)).get(b)).isEmpty();
    }

    @Test
    final void appendAllWritesEveryLoadAndItsOutboxRowsInOneGo() {
        String a = newLoadId();
        String b = newLoadId();
        InboundEvent old = ping(b, "ping_0655", T0);
        store.append(b, List.of(old), 0, List.of());
        InboundEvent pingA = ping(a, "ping_0700", T0);
        InboundEvent pingB = ping(b, "ping_0701", T0);
        List<Action> actionsA = etaAsk(pingA, T0);

        EventStore.Unwritten unwritten = store.appendAll(List.of(
                new EventStore.Append(a, List.of(pingA, decision(pingA, T0, actionsA)), 0,
                        outboxRows(a, actionsA, T0, pingA.eventId())),
                new EventStore.Append(b, List.of(pingB, decision(pingB, T0, List.of())), 1, List.of())));

        assertThat(unwritten).isEqualTo(EventStore.Unwritten.NONE);
        assertThat(store.read(a).entries()).extracting(RecordedEntry::seq).containsExactly(1L, 2L);
        assertThat(store.read(b).entries()).extracting(e -> e.entry().entryId())
                .containsExactly("ping_0655", "ping_0701", "dec:ping_0701");
        assertThat(outbox.find(a + "/ask:eta_request:ping_0700/1/send_sms")).isPresent();
    }

    @Test
    final void appendAllSkipsOnlyTheLoadWhoseVersionIsAheadOfItsLog() {
        String a = newLoadId();
        String b = newLoadId();
        InboundEvent pingA = ping(a, "ping_0700", T0);
        InboundEvent pingB = ping(b, "ping_0701", T0);
        List<Action> actionsB = etaAsk(pingB, T0);

        EventStore.Unwritten unwritten = store.appendAll(List.of(
                new EventStore.Append(a, List.of(pingA), 0, List.of()),
                new EventStore.Append(b, List.of(pingB, decision(pingB, T0, actionsB)), 3,
                        outboxRows(b, actionsB, T0, pingB.eventId()))));

        assertThat(unwritten.behind()).containsExactly(b);
        assertThat(unwritten.refused()).isEmpty();
        assertThat(store.read(a).version()).isEqualTo(1);
        assertThat(store.read(b).version()).isZero();
        assertThat(outbox.find(b + "/ask:eta_request:ping_0701/1/send_sms")).as("no outbox rows without the log").isEmpty();
    }

    @Test
    final void appendAllSkipsAStaleLoadAndWritesTheOthers() {
        String a = newLoadId();
        String b = newLoadId();
        InboundEvent first = ping(b, "ping_0655", T0);
        store.append(b, List.of(first), 0, List.of());
        InboundEvent pingA = ping(a, "ping_0700", T0);
        InboundEvent pingB = ping(b, "ping_0701", T0);
        List<Action> actionsA = etaAsk(pingA, T0);

        EventStore.Unwritten unwritten = store.appendAll(List.of(
                new EventStore.Append(a, List.of(pingA, decision(pingA, T0, actionsA)), 0,
                        outboxRows(a, actionsA, T0, pingA.eventId())),
                new EventStore.Append(b, List.of(pingB), 0, List.of())));

        assertThat(unwritten.behind()).as("b's log is at 1, not 0").containsExactly(b);
        assertThat(store.read(a).version()).isEqualTo(2);
        assertThat(outbox.find(a + "/ask:eta_request:ping_0700/1/send_sms")).isPresent();
        assertThat(store.read(b).entries()).extracting(e -> e.entry().entryId()).containsExactly("ping_0655");
    }

    @Test
    final void appendAllWithAnEntryAlreadyLoggedRefusesTheLoadsOfItsTransaction() {
        String a = newLoadId();
        String b = newLoadId();
        InboundEvent first = ping(b, "ping_0655", T0);
        store.append(b, List.of(first), 0, List.of());
        InboundEvent pingA = ping(a, "ping_0700", T0);
        List<Action> actionsA = etaAsk(pingA, T0);

        EventStore.Unwritten unwritten = store.appendAll(List.of(
                new EventStore.Append(a, List.of(pingA, decision(pingA, T0, actionsA)), 0,
                        outboxRows(a, actionsA, T0, pingA.eventId())),
                new EventStore.Append(b, List.of(ping(b, "ping_0655", T0)), 1, List.of())));

        assertThat(unwritten.refused()).as("the loads of the duplicate's transaction")
                .isEqualTo(appendedTogether(a, b) ? Set.of(a, b) : Set.of(b));
        assertThat(unwritten.behind()).isEmpty();

        if (appendedTogether(a, b)) {
            assertThat(store.read(a).version()).isZero();
            assertThat(outbox.find(a + "/ask:eta_request:ping_0700/1/send_sms")).isEmpty();
        } else {
            assertThat(store.read(a).version()).as("a, written by itself, whole").isEqualTo(2);
            assertThat(outbox.find(a + "/ask:eta_request:ping_0700/1/send_sms")).isPresent();
        }
        assertThat(store.read(b).version()).isEqualTo(1);
    }

    /**
     * Whether two loads of a batch append are written in one transaction, so that a violation in
     * one refuses both. A store that commits a batch in parts (Citus: one transaction per node)
     * writes the parts it can, each load whole, and refuses only the loads of the violation's part.
     */
    protected boolean appendedTogether(String loadA, String loadB) {
        return true;
    }

    @Test
    final void appendAllRefusesTwoAppendsToOneLoad() {
        String a = newLoadId();
        InboundEvent one = ping(a, "ping_0700", T0);
        InboundEvent two = ping(a, "ping_0701", T0);

        assertThatThrownBy(() -> store.appendAll(List.of(new EventStore.Append(a, List.of(one), 0, List.of()),
                new EventStore.Append(a, List.of(two), 1, List.of()))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.read(a).version()).isZero();
    }

    @Test
    final void containsTellsWhetherAnEntryIsInTheLoadsLog() {
        String load = newLoadId();
        InboundEvent ping = ping(load, "ping_0700", T0);
        store.append(load, List.of(ping, decision(ping, T0, List.of())), 0, List.of());

        assertThat(store.contains(load, "ping_0700")).isTrue();
        assertThat(store.contains(load, "dec:ping_0700")).isTrue();
        assertThat(store.contains(load, "ping_0705")).isFalse();
        assertThat(store.contains(newLoadId(), "ping_0700")).isFalse();
    }

    @Test
    final void containsForManyAnswersEachPairInOrderNotEachIdInEachLoad() {
        String a = newLoadId();
        String b = newLoadId();
        InboundEvent pingA = ping(a, "ping_0700", T0);
        InboundEvent pingB = ping(b, "ping_0705", T0);
        store.append(a, List.of(pingA, decision(pingA, T0, List.of())), 0, List.of());
        store.append(b, List.of(pingB), 0, List.of());

        assertThat(store.contains(List.of(a, b, a, b, newLoadId()),
                List.of("ping_0700", "ping_0700", "ping_0705", "ping_0705", "ping_0700")))
                .as("b never logged ping_0700, nor a ping_0705, though each id is in some load's log")
                .containsExactly(true, false, false, true, false);
        assertThat(store.contains(List.of(), List.of())).isEmpty();
    }

    @Test
    final void entriesOfAnotherLoadAreRefused() {
        String load = newLoadId();
        InboundEvent foreign = ping(newLoadId(), "ping_0700", T0);

        assertThatThrownBy(() -> store.append(load, List.of(foreign), 0, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("belongs to load");
        assertThat(store.read(load).version()).isZero();
    }
}
