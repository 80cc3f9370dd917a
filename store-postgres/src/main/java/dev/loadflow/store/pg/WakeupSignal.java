package dev.loadflow.store.pg;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A wake-up that a NOTIFY (or anything else) fires and pollers wait on. A waiter reads
 * {@link #generation()} before it looks for work, and waits only if nothing fired since:
 * a notification that arrives between the look and the wait is never missed. A fire may say
 * when its work is due ({@link #fire(long)}); {@link #earliestDueSince} tells a waiter the
 * earliest of those since a generation, so it can sleep on through wake-ups for later work.
 */
public final class WakeupSignal {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition fired = lock.newCondition();
    private long generation;
    /** The due time of each recent fire, by generation (a fire without one is due now: {@link Long#MIN_VALUE}). */
    private final java.util.NavigableMap<Long, Long> dues = new java.util.TreeMap<>();
    private static final int KEPT = 1024;

    public long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    public void fire() {
        fire(Long.MIN_VALUE);
    }

    /** Fires for work due at {@code dueEpochMillis}. */
    public void fire(long dueEpochMillis) {
        lock.lock();
        try {
            generation++;
            dues.put(generation, dueEpochMillis);
            if (dues.size() > KEPT) {
                dues.pollFirstEntry();
            }
            fired.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The earliest due time (epoch milliseconds) of the fires after {@code seenGeneration}:
     * {@link Long#MIN_VALUE} when one of them was due now, or when they are too many to know.
     */
    public long earliestDueSince(long seenGeneration) {
        lock.lock();
        try {
            if (generation - seenGeneration > dues.size()) {
                return Long.MIN_VALUE;
            }
            return dues.tailMap(seenGeneration, false).values().stream().mapToLong(Long::longValue).min()
                    .orElse(Long.MAX_VALUE);
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
