package dev.loadflow.store.pg;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A wake-up that a NOTIFY (or anything else) fires and pollers wait on. A waiter reads
 * {@link #generation()} before it looks for work, and waits only if nothing fired since:
 * a notification that arrives between the look and the wait is never missed.
 */
public final class WakeupSignal {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition fired = lock.newCondition();
    private long generation;

    public long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    public void fire() {
        lock.lock();
        try {
            generation++;
            fired.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until the signal fires after {@code seenGeneration}, at most {@code timeout}.
     * Returns whether it fired.
     */
    public boolean awaitAfter(long seenGeneration, Duration timeout) {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (generation == seenGeneration) {
                if (remaining <= 0) {
                    return false;
                }
                remaining = fired.awaitNanos(remaining);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    static long toMillis(Duration d) {
        return TimeUnit.NANOSECONDS.toMillis(d.toNanos());
    }
}
