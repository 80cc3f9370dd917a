package dev.loadflow.model.projection;

import dev.loadflow.model.event.EventPayload.TimerFired;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;

import java.time.Instant;

/**
 * An ask that has not been answered or escalated yet. {@code step} is the attempt last taken
 * (1 for the first SMS); {@code currentTimer} is the timer that step set, if any: the wait for an
 * answer, or the wait for the client's SMS hours before the step's text goes out
 * ({@link #waitsForWindow}). {@code sopVersion} is the client's SOP version that opened the ask
 * (0: the configured rules); its attempts, waits and texts follow that version to the end.
 */
public record OpenAsk(AskId askId, int step, TimerId currentTimer, Instant openedAt, Instant stepTakenAt,
                      int sopVersion) {

    /** An ask opened under the configured rules. */
    public OpenAsk(AskId askId, int step, TimerId currentTimer, Instant openedAt, Instant stepTakenAt) {
        this(askId, step, currentTimer, openedAt, stepTakenAt, 0);
    }

    /** Whether the current step's text has not gone out yet: it waits for the SMS hours. */
    public boolean waitsForWindow() {
        return currentTimer != null && currentTimer.window();
    }

    /**
     * Whether a fired timer still matters: it must be the timer of this ask's current step.
     * A timer of a step already passed, or a second copy of one already acted on, is stale
     * and the worker records it as a filtered noop (ADR 0001, ADR 0003).
     */
    public boolean isTimerCurrent(TimerFired fired) {
        return currentTimer != null
                && currentTimer.toString().equals(fired.timerId())
                && fired.attempt() == step;
    }
}
