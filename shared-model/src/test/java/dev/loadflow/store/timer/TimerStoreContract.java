package dev.loadflow.store.timer;

import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.model.time.FakeClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The {@link TimerStore} contract (ADR 0003 "Durable timers through the same pipeline"):
 * idempotent transitions, timers that fire once, and cancelled timers that never fire.
 */
public abstract class TimerStoreContract {

    protected static final Instant T0 = Instant.parse("2026-11-30T07:01:00Z");
    protected static final Duration CLAIM_LEASE = Duration.ofSeconds(30);

    protected final FakeClock clock = FakeClock.at(T0);
    private TimerStore timers;

    protected abstract TimerStore timerStore(Clock clock, Duration claimLease);

    protected abstract void reset();

    @BeforeEach
    final void setUp() {
        reset();
        timers = timerStore(clock, CLAIM_LEASE);
    }

    private static TimerId timerId(String load, int attempt) {
        return TimerId.of(load, AskId.of("eta_request", "ping_0700"), attempt);
    }

    @Test
    final void schedulingTwiceWithOneIdKeepsOneTimerAtTheFirstFireAt() {
        TimerId id = timerId(newLoadId(), 1);

        assertThat(timers.schedule(Timer.schedule(id, T0.plus(Duration.ofMinutes(30)), "c-1"))).isTrue();
        assertThat(timers.schedule(Timer.schedule(id, T0.plus(Duration.ofMinutes(45)), "c-1"))).isFalse();

        assertThat(timers.forLoad(id.loadId())).singleElement().satisfies(t -> {
            assertThat(t.fireAt()).isEqualTo(T0.plus(Duration.ofMinutes(30)));
            assertThat(t.status()).isEqualTo(TimerStatus.SCHEDULED);
            assertThat(t.createdAt()).isEqualTo(T0);
            assertThat(t.correlationId()).isEqualTo("c-1");
        });
    }

    @Test
    final void scheduleAllCreatesEachNewTimerOnceAndKeepsTheFirstFireAt() {
        String load = newLoadId();
        timers.schedule(Timer.schedule(timerId(load, 1), T0.plusSeconds(10), "c-1"));

        Set<TimerId> created = timers.scheduleAll(List.of(
                Timer.schedule(timerId(load, 1), T0.plusSeconds(99), "c-1"),
                Timer.schedule(timerId(load, 2), T0.plusSeconds(20), "c-2"),
                Timer.schedule(timerId(load, 3), T0.plusSeconds(30), null),
                Timer.schedule(timerId(load, 3), T0.plusSeconds(31), null)));

        assertThat(created).as("1 existed; 3 twice in one batch is created once")
                .containsExactlyInAnyOrder(timerId(load, 2), timerId(load, 3));
        assertThat(timers.forLoad(load)).extracting(Timer::timerId, Timer::fireAt, Timer::correlationId).containsExactly(
                tuple(timerId(load, 1), T0.plusSeconds(10), "c-1"),
                tuple(timerId(load, 2), T0.plusSeconds(20), "c-2"),
                tuple(timerId(load, 3), T0.plusSeconds(30), null));
        assertThat(timers.scheduleAll(List.of())).isEmpty();
    }

    @Test
    final void cancelAllCancelsScheduledTimersLeavesTombstonesAndSkipsFiredOnes() {
        String load = newLoadId();
        timers.schedule(Timer.schedule(timerId(load, 1), T0.plusSeconds(10), null));
        timers.schedule(Timer.schedule(timerId(load, 2), T0.plusSeconds(10), null));
        timers.due(T0.plusSeconds(10), 10);
        timers.markFired(timerId(load, 2), T0.plusSeconds(10));

        Set<TimerId> cancelled = timers.cancelAll(List.of(timerId(load, 1), timerId(load, 2), timerId(load, 3),
                timerId(load, 3)), T0.plusSeconds(11));

        assertThat(cancelled).as("2 had fired; 3 was unknown and gets a tombstone, once")
                .containsExactlyInAnyOrder(timerId(load, 1), timerId(load, 3));
        assertThat(timers.find(timerId(load, 1)).orElseThrow().status()).isEqualTo(TimerStatus.CANCELLED);
        assertThat(timers.find(timerId(load, 2)).orElseThrow().status()).isEqualTo(TimerStatus.FIRED);
        assertThat(timers.schedule(Timer.schedule(timerId(load, 3), T0.plusSeconds(60), null)))
                .as("the late schedule of a cancelled timer does nothing").isFalse();
        assertThat(timers.due(T0.plusSeconds(120), 10)).isEmpty();
    }

    @Test
    final void dueReturnsOnlyTimersAtOrPastFireAtEarliestFirst() {
        String load = newLoadId();
        timers.schedule(Timer.schedule(timerId(load, 2), T0.plusSeconds(20), null));
        timers.schedule(Timer.schedule(timerId(load, 1), T0.plusSeconds(10), null));
        timers.schedule(Timer.schedule(timerId(load, 3), T0.plusSeconds(30), null));

        assertThat(timers.due(T0.plusSeconds(9), 10)).isEmpty();
        assertThat(timers.due(T0.plusSeconds(20), 10)).extracting(Timer::timerId)
                .containsExactly(timerId(load, 1), timerId(load, 2));
        assertThat(timers.nextFireAt()).contains(T0.plusSeconds(10));
        assertThat(timers.dueCount(T0.plusSeconds(20))).isEqualTo(2);
        assertThat(timers.dueCount(T0.plusSeconds(30))).isEqualTo(3);
    }

    @Test
    final void aFiredTimerIsNeverDueAgainAndMarkFiredIsIdempotent() {
        TimerId id = timerId(newLoadId(), 1);
        timers.schedule(Timer.schedule(id, T0, null));
        assertThat(timers.due(T0, 10)).hasSize(1);

        assertThat(timers.markFired(id, T0.plusMillis(40))).isTrue();
        assertThat(timers.markFired(id, T0.plusSeconds(5))).isFalse();

        assertThat(timers.find(id).orElseThrow().firedAt()).isEqualTo(T0.plusMillis(40));
        assertThat(timers.due(T0.plus(Duration.ofDays(1)), 10)).isEmpty();
        assertThat(timers.nextFireAt()).isEmpty();
    }

    @Test
    final void aClaimedTimerIsDueAgainOnlyAfterItsLeaseWhenTheClaimantDiedBeforeTheMark() {
        TimerId id = timerId(newLoadId(), 1);
        timers.schedule(Timer.schedule(id, T0, null));
        assertThat(timers.due(T0, 10)).hasSize(1);
        // the pump published TimerFired and crashed before markFired

        assertThat(timers.due(T0.plus(CLAIM_LEASE).minusMillis(1), 10)).isEmpty();
        assertThat(timers.due(T0.plus(CLAIM_LEASE), 10)).extracting(Timer::timerId).containsExactly(id);
    }

    @Test
    final void aCancelledTimerNeverFiresAndCancelIsIdempotent() {
        TimerId id = timerId(newLoadId(), 1);
        timers.schedule(Timer.schedule(id, T0.plusSeconds(10), null));

        assertThat(timers.cancel(id, T0)).isTrue();
        assertThat(timers.cancel(id, T0.plusSeconds(1))).isFalse();

        assertThat(timers.due(T0.plus(Duration.ofDays(1)), 10)).isEmpty();
        Timer cancelled = timers.find(id).orElseThrow();
        assertThat(cancelled.status()).isEqualTo(TimerStatus.CANCELLED);
        assertThat(cancelled.cancelledAt()).isEqualTo(T0);
        assertThat(timers.markFired(id, T0.plusSeconds(10))).isFalse();
    }

    @Test
    final void aCancelThatOvertakesItsScheduleStillWins() {
        TimerId id = timerId(newLoadId(), 1);

        assertThat(timers.cancel(id, T0)).isTrue();
        assertThat(timers.schedule(Timer.schedule(id, T0.plusSeconds(10), null))).isFalse();

        assertThat(timers.due(T0.plus(Duration.ofDays(1)), 10)).isEmpty();
        assertThat(timers.find(id).orElseThrow().status()).isEqualTo(TimerStatus.CANCELLED);
    }

    @Test
    final void cancellingAFiredTimerChangesNothing() {
        TimerId id = timerId(newLoadId(), 1);
        timers.schedule(Timer.schedule(id, T0, null));
        timers.due(T0, 1);
        timers.markFired(id, T0);

        assertThat(timers.cancel(id, T0.plusSeconds(1))).isFalse();
        assertThat(timers.find(id).orElseThrow().status()).isEqualTo(TimerStatus.FIRED);
    }

    @Test
    final void pruneDeletesFinishedTimersOlderThanTheCutoffAndKeepsScheduledOnes() {
        String load = newLoadId();
        timers.schedule(Timer.schedule(timerId(load, 1), T0, null));
        timers.schedule(Timer.schedule(timerId(load, 2), T0, null));
        timers.schedule(Timer.schedule(timerId(load, 3), T0.plus(Duration.ofDays(30)), null));
        timers.markFired(timerId(load, 1), T0);
        timers.cancel(timerId(load, 2), T0);

        assertThat(timers.prune(T0.plusSeconds(1), 1)).isEqualTo(1);
        assertThat(timers.prune(T0.plusSeconds(1), 10)).isEqualTo(1);
        assertThat(timers.prune(T0.plus(Duration.ofDays(60)), 10)).isZero();

        assertThat(timers.forLoad(load)).extracting(Timer::timerId).containsExactly(timerId(load, 3));
    }

    @Test
    final void threePumpsOverAThousandDueTimersFireEachExactlyOnce() throws Exception {
        List<String> loads = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            loads.add(newLoadId());
        }
        for (String load : loads) {
            for (int attempt = 1; attempt <= 10; attempt++) {
                timers.schedule(Timer.schedule(timerId(load, attempt), T0.plusMillis(attempt * 100L), null));
            }
        }
        Map<TimerId, AtomicInteger> fired = new ConcurrentHashMap<>();
        Instant now = T0.plusSeconds(2);
        List<Callable<Void>> pumps = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            pumps.add(() -> {
                List<Timer> batch;
                while (!(batch = timers.due(now, 25)).isEmpty()) {
                    for (Timer timer : batch) {
                        fired.computeIfAbsent(timer.timerId(), k -> new AtomicInteger()).incrementAndGet();
                        timers.markFired(timer.timerId(), now);
                    }
                }
                return null;
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            for (Future<Void> done : pool.invokeAll(pumps)) {
                done.get();
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(fired).hasSize(1000);
        assertThat(fired.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        assertThat(timers.due(now.plus(Duration.ofDays(1)), 10)).isEmpty();
    }
}
