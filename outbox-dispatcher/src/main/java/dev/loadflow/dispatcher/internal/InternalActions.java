package dev.loadflow.dispatcher.internal;

import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.json.ActionCodec;
import dev.loadflow.model.json.InvalidJsonException;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.store.timer.TimerStore;

import java.time.Clock;
import java.util.Optional;

/**
 * The internal actions, applied in loadflow's own database: {@code set_timer} and
 * {@code cancel_timer} on the {@link TimerStore} (both idempotent, so a repeated row is
 * harmless), {@code update_stage} on the {@code load_stage} read model.
 */
public final class InternalActions {

    private final TimerStore timers;
    private final LoadStageRepository stages;
    private final Clock clock;

    public InternalActions(TimerStore timers, LoadStageRepository stages, Clock clock) {
        this.timers = timers;
        this.stages = stages;
        this.clock = clock;
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
                        timers.schedule(Timer.schedule(set.timerId(), set.fireAt(), row.correlationId()))
                                ? "scheduled " + set.timerId() + " at " + set.fireAt()
                                : "already scheduled " + set.timerId());
                case Action.CancelTimer cancel -> new SendResult.Delivered(
                        timers.cancel(cancel.timerId(), clock.instant())
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
}
