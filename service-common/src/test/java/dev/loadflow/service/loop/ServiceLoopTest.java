package dev.loadflow.service.loop;

import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.pg.WakeupSignal;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static dev.loadflow.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** The loop on a waiter the test steps through and a {@link FakeClock}: no test here sleeps. */
class ServiceLoopTest {

    /** loadflow.loop.max-backoff's default */
    private static final Duration THIRTY_SECONDS = Duration.ofSeconds(30);

    private final FakeClock clock = FakeClock.at("2026-11-30T07:00:00Z");
    private final StepWaiter waiter = new StepWaiter();
    private ServiceLoop loop;

    @AfterEach
    void stop() {
        if (loop != null) {
            loop.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    void eachPassRestsAsItAsksWaitingForAWakeUpSinceBeforeThePassThenLingering() throws Exception {
        loop = new ServiceLoop("test-loop", () -> {
            waiter.generation.incrementAndGet(); // a NOTIFY that arrives while the pass looks for work
            return Rest.idle(Duration.ofSeconds(1)).thenLinger(Duration.ofMillis(5));
        }, waiter, clock, THIRTY_SECONDS);
        loop.start();

        Wait first = waiter.next();
        assertThat(first.kind()).isEqualTo("awaitWake");
        assertThat(first.mark()).as("the mark is read before the pass, so the NOTIFY during it is not missed").isZero();
        assertThat(first.duration()).isEqualTo(Duration.ofSeconds(1));
        waiter.release();
        assertThat(waiter.next()).isEqualTo(new Wait("pause", -1, Duration.ofMillis(5)));
        waiter.release();
        assertThat(waiter.next().mark()).as("the next pass reads the mark again").isEqualTo(1);
    }

    @Test
    void aPassWithNothingToRestGoesRoundAtOnce() throws Exception {
        AtomicInteger passes = new AtomicInteger();
        loop = new ServiceLoop("test-loop", () -> passes.incrementAndGet() < 5 ? Rest.NONE : Rest.idle(Duration.ofSeconds(9)),
                waiter, clock, THIRTY_SECONDS);
        loop.start();

        assertThat(waiter.next()).isEqualTo(new Wait("awaitWake", 0, Duration.ofSeconds(9)));
        assertThat(passes).hasValue(5);
    }

    @Test
    void failuresBackOffFromHalfASecondDoublingToThirtySecondsAndASuccessStartsOver() throws Exception {
        AtomicInteger failuresLeft = new AtomicInteger(8);
        loop = new ServiceLoop("test-loop", () -> {
            if (failuresLeft.getAndDecrement() > 0) {
                throw new IllegalStateException("database unreachable");
            }
            failuresLeft.set(1);
            return Rest.idle(Duration.ofSeconds(3));
        }, waiter, clock, THIRTY_SECONDS);
        loop.start();

        assertThat(nextWaits(8)).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
                Duration.ofSeconds(4), Duration.ofSeconds(8), Duration.ofSeconds(16), Duration.ofSeconds(30),
                Duration.ofSeconds(30));
        assertThat(waiter.next().duration()).as("the pass that succeeded rests as it asked").isEqualTo(Duration.ofSeconds(3));
        waiter.release();
        assertThat(waiter.next().duration()).as("the next failure starts the backoff over").isEqualTo(Duration.ofMillis(500));
        assertThat(loop.running()).as("failures never end the loop").isTrue();
    }

    /**
     * During a backoff the loop asks every second whether the database answers: once it said no and
     * then yes (an outage, over), the loop goes round at once rather than at the backoff's end.
     */
    @Test
    void aBackoffEndsOnceTheDatabaseAnswersAgainAfterNotAnswering() throws Exception {
        AtomicInteger passes = new AtomicInteger();
        BlockingQueue<Boolean> answers = new LinkedBlockingQueue<>(List.of(false, false, true));
        loop = new ServiceLoop("test-loop", () -> {
            passes.incrementAndGet();
            throw new IllegalStateException("database unreachable");
        }, waiter, clock, THIRTY_SECONDS);
        loop.resumeWhen(() -> answers.remove());
        loop.start();
        assertThat(nextWaits(3)).as("short backoffs are waited out whole").containsExactly(Duration.ofMillis(500),
                Duration.ofSeconds(1), Duration.ofSeconds(2));

        List<Duration> slices = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            slices.add(waiter.next().duration());
            clock.advance(Duration.ofSeconds(1));
            waiter.release();
        }

        assertThat(slices).as("the 4 s backoff, a second at a time").containsOnly(Duration.ofSeconds(1));
        assertThat(waiter.next().duration()).as("the next backoff, after the pass that went round early")
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(passes).as("the fifth pass three seconds into the 4 s backoff").hasValue(5);
        assertThat(answers).isEmpty();
    }

    /** A failure while the database answers all along (not an outage) keeps its whole backoff. */
    @Test
    void aBackoffWhileTheDatabaseAnswersIsWaitedOutWhole() throws Exception {
        AtomicInteger passes = new AtomicInteger();
        loop = new ServiceLoop("test-loop", () -> {
            passes.incrementAndGet();
            throw new IllegalStateException("a bug");
        }, waiter, clock, THIRTY_SECONDS);
        loop.resumeWhen(() -> true);
        loop.start();
        nextWaits(3);

        for (int i = 0; i < 4; i++) {
            assertThat(waiter.next().duration()).isEqualTo(Duration.ofSeconds(1));
            clock.advance(Duration.ofSeconds(1));
            waiter.release();
        }

        assertThat(waiter.next().duration()).as("the 8 s backoff after it").isEqualTo(Duration.ofSeconds(1));
        assertThat(passes).as("the 4 s backoff ran to its end before the fifth pass").hasValue(5);
    }

    /** The loop's next {@code n} waits, each let go at once. */
    private List<Duration> nextWaits(int n) throws InterruptedException {
        List<Duration> waits = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            waits.add(waiter.next().duration());
            waiter.release();
        }
        return waits;
    }

    @Test
    void theLongestBackoffIsTheOneConfigured() throws Exception {
        loop = new ServiceLoop("test-loop", () -> {
            throw new IllegalStateException("database unreachable");
        }, waiter, clock, Duration.ofSeconds(2));
        loop.start();

        assertThat(nextWaits(5)).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
                Duration.ofSeconds(2), Duration.ofSeconds(2));
        assertThatThrownBy(() -> new ServiceLoop("test-loop", () -> Rest.NONE, waiter, clock, Duration.ofMillis(100)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least PT0.5S");
    }

    @Test
    void livenessIsMeasuredOnTheClockFromTheStartOfThePassInProgress() throws Exception {
        CountDownLatch stuck = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(1);
        loop = new ServiceLoop("test-loop", () -> {
            entered.countDown();
            stuck.await();
            return Rest.NONE;
        }, waiter, clock, THIRTY_SECONDS);
        loop.start();
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        var alive = LoopHealth.alive("test-loop-alive", true, loop, Duration.ofMinutes(1));
        var ready = LoopHealth.started("test-loop", true, loop);

        clock.advance(Duration.ofSeconds(59));
        assertThat(alive.call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(loop.sinceLastLoop()).isEqualTo(Duration.ofSeconds(59));

        clock.advance(Duration.ofSeconds(1));
        assertThat(alive.call().getStatus()).as("a pass hung for the whole limit").isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(ready.call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        stuck.countDown();
    }

    @Test
    void livenessWaitsOutTheLongestRestAPassOnASilentLinkAndTheLongestBackoff() throws Exception {
        LoopConfig defaults = new LoopConfig(THIRTY_SECONDS, Duration.ofSeconds(5));
        assertThat(defaults.livenessLimit(Duration.ofSeconds(10))).as("the worker's window: ten poll waits of 1 s")
                .isEqualTo(Duration.ofSeconds(55));

        // a pass hangs on a connection that stays silent (three link timeouts), fails, and backs off the longest
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch hung = new CountDownLatch(1);
        AtomicInteger passes = new AtomicInteger();
        loop = new ServiceLoop("test-loop", () -> {
            if (passes.incrementAndGet() == 1) {
                entered.countDown();
                hung.await();
                throw new IllegalStateException("no answer for PT15S");
            }
            return Rest.idle(Duration.ofSeconds(1));
        }, waiter, clock, THIRTY_SECONDS);
        var alive = LoopHealth.alive("test-loop-alive", true, loop, defaults.livenessLimit(Duration.ofSeconds(10)));
        loop.start();
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        clock.advance(Duration.ofSeconds(15));
        hung.countDown();
        assertThat(waiter.next().duration()).isEqualTo(Duration.ofMillis(500));
        clock.advance(Duration.ofSeconds(30));
        assertThat(alive.call().getStatus()).as("45 s without a new pass: within the window").isEqualTo(HealthCheckResponse.Status.UP);
        clock.advance(Duration.ofSeconds(10));
        assertThat(alive.call().getStatus()).as("55 s: beyond it").isEqualTo(HealthCheckResponse.Status.DOWN);
        waiter.release();
    }

    @Test
    void aLoopNotMeantToRunIsLiveAndNotReadyAndOneWhoseThreadDiedIsNotLive() throws Exception {
        loop = new ServiceLoop("test-loop", () -> Rest.idle(Duration.ofMinutes(1)), waiter, clock, THIRTY_SECONDS);
        assertThat(LoopHealth.started("off", false, loop).call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(LoopHealth.started("on", true, loop).call().getStatus()).as("not started")
                .isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(LoopHealth.alive("on", true, loop, Duration.ofMinutes(1)).call().getStatus())
                .as("not started yet (the schema gate waits): nothing a restart would fix").isEqualTo(HealthCheckResponse.Status.UP);

        loop.start();
        waiter.next();
        assertThat(loop.stop(Duration.ofSeconds(10))).as("stop ends the wait in progress").isTrue();
        assertThat(loop.running()).isFalse();
        assertThat(LoopHealth.started("on", true, loop).call().getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(LoopHealth.alive("on", true, loop, Duration.ofMinutes(1)).call().getStatus())
                .as("stopped on purpose").isEqualTo(HealthCheckResponse.Status.UP);

        ServiceLoop dying = new ServiceLoop("dying-loop", () -> {
            throw new AssertionError("the loop's thread dies");
        }, waiter, clock, THIRTY_SECONDS);
        dying.start();
        // the error the thread dies of is the test's own: Awaitility would fail the wait with it
        // whenever the thread died during the wait rather than before it
        await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(10)).until(() -> !dying.running());
        assertThat(LoopHealth.alive("dying", true, dying, Duration.ofMinutes(1)).call().getStatus())
                .as("meant to run and not running: a restart may help").isEqualTo(HealthCheckResponse.Status.DOWN);
    }

    @Test
    void aWaiterOnAWakeupSignalReturnsAtOnceWhenTheSignalFiredSinceTheMark() {
        WakeupSignal signal = new WakeupSignal();
        Waiter onSignal = Waiter.on(signal);
        long mark = onSignal.mark();
        signal.fire();

        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> onSignal.awaitWake(mark, Duration.ofHours(1)));
        assertThat(onSignal.mark()).isNotEqualTo(mark);
    }

    @Test
    void aWaiterUntilDueSleepsThroughAFireForLaterWorkAndWakesForSoonerWork() {
        WakeupSignal signal = new WakeupSignal();
        java.time.Clock clock = java.time.Clock.systemUTC();
        Waiter untilDue = Waiter.untilDue(signal, clock);

        long mark = untilDue.mark();
        signal.fire(clock.millis() + Duration.ofHours(1).toMillis());
        long started = System.nanoTime();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> untilDue.awaitWake(mark, Duration.ofMillis(400)));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("slept its whole planned time")
                .isGreaterThanOrEqualTo(Duration.ofMillis(390));

        long again = untilDue.mark();
        signal.fire(clock.millis() + 50);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> untilDue.awaitWake(again, Duration.ofHours(1)));
        long now = untilDue.mark();
        signal.fire();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> untilDue.awaitWake(now, Duration.ofHours(1)));
    }

    record Wait(String kind, long mark, Duration duration) {
    }

    /** Records each wait the loop asks for and holds it until the test releases it (or the loop is stopped). */
    static final class StepWaiter implements Waiter {
        final AtomicLong generation = new AtomicLong();
        private final BlockingQueue<Wait> waits = new LinkedBlockingQueue<>();
        private final Semaphore go = new Semaphore(0);

        Wait next() throws InterruptedException {
            Wait wait = waits.poll(10, TimeUnit.SECONDS);
            assertThat(wait).as("the loop asked for a wait").isNotNull();
            return wait;
        }

        void release() {
            go.release();
        }

        @Override
        public long mark() {
            return generation.get();
        }

        @Override
        public void awaitWake(long mark, Duration timeout) throws InterruptedException {
            waits.add(new Wait("awaitWake", mark, timeout));
            go.acquire();
        }

        @Override
        public void pause(Duration duration) throws InterruptedException {
            waits.add(new Wait("pause", -1, duration));
            go.acquire();
        }

        @Override
        public void wake() {
            go.release(1_000);
        }
    }
}
