package dev.loadflow.dispatcher.internal;

import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.service.loop.GroupCommit;
import dev.loadflow.store.stage.LoadStages;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.store.timer.TimerStore;

import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The internal actions, applied in loadflow's own database: {@code set_timer} and
 * {@code cancel_timer} on the {@link TimerStore} (both idempotent, so a repeated row is
 * harmless), {@code update_stage} on the {@code load_stage} read model.
 *
 * <p>Timer writes of rows sent at the same time go to the database together
 * ({@link GroupCommit}: one statement and one commit for the schedules, one for the cancels,
 * that arrived during the previous write). A row sent alone is written at once. When a
 * group's statement fails, each of its rows is written alone, so one bad row fails alone.
 */
public final class InternalActions {

    /** The most timer writes in one statement. */
    private static final int MAX_GROUP = 64;

    private final TimerStore timers;
    private final LoadStages stages;
    private final Clock clock;
    private final GroupCommit<Timer, Boolean> schedules;
    private final GroupCommit<TimerId, Boolean> cancels;

    public InternalActions(TimerStore timers, LoadStages stages, Clock clock) {
        this.timers = timers;
        this.stages = stages;
        this.clock = clock;
        this.schedules = new GroupCommit<>(group -> firstOfEach(group.stream().map(Timer::timerId).toList(),
                timers.scheduleAll(group)), MAX_GROUP);
        this.cancels = new GroupCommit<>(group -> firstOfEach(group, timers.cancelAll(group, clock.instant())), MAX_GROUP);
    }

    /** {@code set_timer}: schedules the timer (idempotent on its id); its firing continues the trace {@code traceparent} names. */
    public SendResult setTimer(Action.SetTimer set, String correlationId, String traceparent) {
        return inDatabase(() -> schedule(Timer.schedule(set.timerId(), set.fireAt(), correlationId, traceparent))
                ? "scheduled " + set.timerId() + " at " + set.fireAt()
                : "already scheduled " + set.timerId());
    }

    /** {@code cancel_timer}: cancels the timer, or leaves a tombstone for a schedule still to come. */
    public SendResult cancelTimer(Action.CancelTimer cancel) {
        return inDatabase(() -> cancel(cancel.timerId())
                ? "cancelled " + cancel.timerId()
                : "already fired or cancelled " + cancel.timerId());
    }

    /** {@code update_stage}: the load's stage in the {@code load_stage} read model. */
    public SendResult updateStage(String loadId, String outboxId, Action.UpdateStage update) {
        return inDatabase(() -> {
            stages.set(loadId, update.stage(), outboxId, clock.instant());
            return "stage " + update.stage();
        });
    }

    /** A database failure is worth a retry: the write is idempotent. */
    private static SendResult inDatabase(Supplier<String> write) {
        try {
            return new SendResult.Delivered(write.get());
        } catch (RuntimeException e) {
            return new SendResult.Retryable("database: " + e.getMessage(), Optional.empty());
        }
    }

    private boolean schedule(Timer timer) {
        try {
            return schedules.submit(timer);
        } catch (RuntimeException groupFailed) {
            return timers.schedule(timer);
        }
    }

    private boolean cancel(TimerId timerId) {
        try {
            return cancels.submit(timerId);
        } catch (RuntimeException groupFailed) {
            return timers.cancel(timerId, clock.instant());
        }
    }

    /** Per item of a group: whether the write took effect for it (only the first of a repeated id). */
    private static List<Boolean> firstOfEach(List<TimerId> group, Set<TimerId> took) {
        Set<TimerId> told = new HashSet<>();
        return group.stream().map(id -> took.contains(id) && told.add(id)).toList();
    }
}
