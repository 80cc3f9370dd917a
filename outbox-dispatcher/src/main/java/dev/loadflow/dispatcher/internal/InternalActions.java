package dev.loadflow.dispatcher.internal;

import dev.loadflow.dispatcher.claim.GroupCommit;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.model.json.ActionCodec;
import dev.loadflow.model.json.InvalidJsonException;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.store.timer.TimerStore;

import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

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
    private final LoadStageRepository stages;
    private final Clock clock;
    private final GroupCommit<Timer, Boolean> schedules;
    private final GroupCommit<TimerId, Boolean> cancels;

    public InternalActions(TimerStore timers, LoadStageRepository stages, Clock clock) {
        this.timers = timers;
        this.stages = stages;
        this.clock = clock;
        this.schedules = new GroupCommit<>(group -> firstOfEach(group.stream().map(Timer::timerId).toList(),
                timers.scheduleAll(group)), MAX_GROUP);
        this.cancels = new GroupCommit<>(group -> firstOfEach(group, timers.cancelAll(group, clock.instant())), MAX_GROUP);
    }

    public SendResult apply(OutboxRow row) {
        Action action;
        try {
            action = ActionCodec.decode(row.payload());
        } catch (InvalidJsonException e) {
            return new SendResult.Permanent("unreadable payload: " + e.getMessage());
        }
        try {
            return switch (action) {
                case Action.SetTimer set -> new SendResult.Delivered(
                        schedule(Timer.schedule(set.timerId(), set.fireAt(), row.correlationId()))
                                ? "scheduled " + set.timerId() + " at " + set.fireAt()
                                : "already scheduled " + set.timerId());
                case Action.CancelTimer cancel -> new SendResult.Delivered(
                        cancel(cancel.timerId())
                                ? "cancelled " + cancel.timerId()
                                : "already fired or cancelled " + cancel.timerId());
                case Action.UpdateStage update -> {
                    stages.set(row.loadId(), update.stage(), row.outboxId(), clock.instant());
                    yield new SendResult.Delivered("stage " + update.stage());
                }
                case Action.SendSms sms -> new SendResult.Permanent("send_sms is not an internal action");
                case Action.CreateHeroTask task -> new SendResult.Permanent("create_hero_task is not an internal action");
                case Action.PostHeroSlack post -> new SendResult.Permanent("post_hero_slack is not an internal action");
            };
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
