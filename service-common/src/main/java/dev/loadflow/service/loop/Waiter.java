package dev.loadflow.service.loop;

import dev.loadflow.store.pg.WakeupSignal;

import java.time.Duration;

/**
 * What a {@link ServiceLoop} waits on between passes. A loop reads {@link #mark()} before it
 * looks for work and waits only if nothing woke it since, so a wake-up that arrives between the
 * look and the wait is never missed. Tests pass a waiter they control.
 */
public interface Waiter {

    /** The waiter's state before a pass; {@link #awaitWake} returns at once if woken since. */
    long mark();

    /** Waits until woken after {@code mark}, or until {@code timeout} has passed. */
    void awaitWake(long mark, Duration timeout) throws InterruptedException;

    /** Pauses for {@code duration} whatever wakes meanwhile (a linger that lets more work gather). */
    void pause(Duration duration) throws InterruptedException;

    /** Ends a wait in progress (and the next one, if none is in progress). */
    void wake();

    /** A waiter that a {@code NOTIFY} (through {@code signal}) or {@link #wake()} ends. */
    static Waiter on(WakeupSignal signal) {
        return new Waiter() {
            @Override
            public long mark() {
                return signal.generation();
            }

            @Override
            public void awaitWake(long mark, Duration timeout) {
                signal.awaitAfter(mark, timeout);
            }

            @Override
            public void pause(Duration duration) throws InterruptedException {
                Thread.sleep(duration);
            }

            @Override
            public void wake() {
                signal.fire();
            }
        };
    }

    /**
     * A waiter on a signal whose fires say when their work is due (the timer pump's: a new
     * timer's {@code fire_at}): a fire for work due after the planned wake-up does not end the
     * wait, since the loop was going to look by then anyway; a fire due before it, or due now,
     * does. So a timer scheduled half an hour out costs the pump nothing.
     */
    static Waiter untilDue(WakeupSignal signal, java.time.Clock clock) {
        return new Waiter() {
            @Override
            public long mark() {
                return signal.generation();
            }

            @Override
            public void awaitWake(long mark, Duration timeout) {
                long wakeAt = clock.millis() + timeout.toMillis();
                long seen = mark;
                while (true) {
                    long remaining = wakeAt - clock.millis();
                    if (remaining <= 0 || !signal.awaitAfter(seen, Duration.ofMillis(remaining))) {
                        return;
                    }
                    long current = signal.generation();
                    if (signal.earliestDueSince(seen) < wakeAt) {
                        return;
                    }
                    seen = current; // fires after `current` are looked at on the next round
                }
            }

            @Override
            public void pause(Duration duration) throws InterruptedException {
                Thread.sleep(duration);
            }

            @Override
            public void wake() {
                signal.fire();
            }
        };
    }

    /** A waiter that only {@link #wake()} (the loop's stop) ends early: for loops whose pass waits itself. */
    static Waiter timeoutsOnly() {
        return on(new WakeupSignal());
    }
}
