package dev.loadflow.dispatcher.protect;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Waits for a slot of a channel's limiter in the order the rows came, at most {@code longestWait}
 * each. A slot that frees wakes the row first in line only; the row that takes a slot wakes the
 * next one while the limit has room (so a limit that grew lets more go). concurrency-limits' own
 * {@code BlockingLimiter} wakes every waiting row on each release, and all but one of them wait
 * again: with a slow provider, a channel's rows waiting for their slots are as many as its
 * requests in flight, and each answer woke them all.
 */
final class QueuedSlots implements Limiter<Void> {

    private final SimpleLimiter<Void> limiter;
    private final long longestWaitNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Condition> line = new ArrayDeque<>();

    QueuedSlots(SimpleLimiter<Void> limiter, Duration longestWait) {
        this.limiter = limiter;
        this.longestWaitNanos = longestWait.toNanos();
    }

    /** A slot, at once or in turn; empty after {@code longestWait} (or when the waiting thread is interrupted). */
    @Override
    public Optional<Listener> acquire(Void context) {
        lock.lock();
        try {
            if (line.isEmpty()) {
                Optional<Listener> slot = limiter.acquire(null);
                if (slot.isPresent()) {
                    return slot.map(this::wakingTheNext);
                }
            }
            Condition turn = lock.newCondition();
            line.addLast(turn);
            try {
                long left = longestWaitNanos;
                while (left > 0) {
                    left = turn.awaitNanos(left);
                    if (line.peekFirst() == turn) {
                        Optional<Listener> slot = limiter.acquire(null);
                        if (slot.isPresent()) {
                            return slot.map(this::wakingTheNext);
                        }
                    }
                }
                return Optional.empty();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            } finally {
                boolean first = line.peekFirst() == turn;
                line.remove(turn);
                if (first) {
                    wakeTheNextIfRoom();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The rows waiting for a slot now. */
    int waiting() {
        lock.lock();
        try {
            return line.size();
        } finally {
            lock.unlock();
        }
    }

    private void wakeTheNextIfRoom() {
        Condition next = line.peekFirst();
        if (next != null && limiter.getInflight() < limiter.getLimit()) {
            next.signal();
        }
    }

    /** The slot, which wakes the row first in line once it is given back. */
    private Listener wakingTheNext(Listener slot) {
        return new Listener() {
            @Override
            public void onSuccess() {
                slot.onSuccess();
                freed();
            }

            @Override
            public void onIgnore() {
                slot.onIgnore();
                freed();
            }

            @Override
            public void onDropped() {
                slot.onDropped();
                freed();
            }
        };
    }

    private void freed() {
        lock.lock();
        try {
            wakeTheNextIfRoom();
        } finally {
            lock.unlock();
        }
    }
}
