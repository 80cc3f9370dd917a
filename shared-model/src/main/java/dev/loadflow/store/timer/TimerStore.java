package dev.loadflow.store.timer;

import dev.loadflow.model.id.TimerId;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Durable timers. Every transition is idempotent, so the dispatcher (which applies
 * {@code set_timer} and {@code cancel_timer} actions) and the pump may repeat any call.
 *
 * <p>Concurrency contract: {@link #due} claims the timers it returns under a short lease, so
 * several pumps can run without firing one timer twice while the lease holds; a timer whose
 * claimant died before {@link #markFired} is due again when the lease ends. A timer cancelled
 * before it is claimed never fires. Calls block; call them from a worker or virtual thread.
 */
public interface TimerStore {

    /**
     * Schedules {@code timer} unless a timer with its id exists (scheduled, fired or
     * cancelled). Returns whether it was created.
     */
    boolean schedule(Timer timer);

    /**
     * Cancels the timer if it is still scheduled. A cancel that arrives before the schedule
     * leaves a cancelled timer, so the late schedule does nothing. Returns whether a scheduled
     * timer (or a new tombstone) was cancelled by this call.
     */
    boolean cancel(TimerId timerId, Instant now);

    /**
     * {@link #schedule} for many timers at once (one statement where the store can). Returns the
     * ids of the timers this call created; a repeated id is created at most once.
     */
    default Set<TimerId> scheduleAll(List<Timer> timers) {
        Set<TimerId> created = new HashSet<>();
        for (Timer timer : timers) {
            if (schedule(timer)) {
                created.add(timer.timerId());
            }
        }
        return created;
    }

    /**
     * {@link #cancel} for many timers at once (one statement where the store can). Returns the
     * ids this call cancelled (or left a tombstone for); a repeated id counts once.
     */
    default Set<TimerId> cancelAll(List<TimerId> timerIds, Instant now) {
        Set<TimerId> cancelled = new HashSet<>();
        for (TimerId id : timerIds) {
            if (cancel(id, now)) {
                cancelled.add(id);
            }
        }
        return cancelled;
    }

    /** Claims up to {@code limit} scheduled timers with {@code fire_at <= now}, earliest first. */
    List<Timer> due(Instant now, int limit);

    /** Marks the timer fired; a no-op (false) for a timer already fired or cancelled. */
    boolean markFired(TimerId timerId, Instant now);

    Optional<Timer> find(TimerId timerId);

    /** A load's timers, by {@code fire_at}. */
    List<Timer> forLoad(String loadId);

    /** How many scheduled timers are due at {@code now} and not yet fired: the pump's backlog. */
    long dueCount(Instant now);

    /** The earliest {@code fire_at} of a scheduled timer: the pump sleeps until then. */
    Optional<Instant> nextFireAt();

    /** Deletes up to {@code batchSize} fired or cancelled timers that ended before {@code before}. */
    int prune(Instant before, int batchSize);
}
