package dev.loadflow.model.policy;

import dev.loadflow.model.action.ActionType;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.OutcomeStatus;
import dev.loadflow.model.projection.LoadState;

import java.util.Optional;

/**
 * The checks taken before any policy call (ADR 0003). An event they catch is logged with a
 * filtered noop decision and never reaches the policy: a delivered outcome, a failed outcome
 * of a Hero-channel or internal action (the dispatcher raised an OpsAlert; a Hero task here
 * could loop while the Hero tooling is down), a timer that is not the current step of an
 * open ask (late, duplicate, or for an answered ask), and a re-assignment by a source other than
 * the one that assigned the load (ingest refuses it with 403; one queued before the first
 * assignment was logged is caught here, and the projection ignores it).
 */
public final class DeterministicFilter {

    private DeterministicFilter() {
    }

    /** The reason to record a filtered noop, or empty when the policy must decide. */
    public static Optional<String> filter(InboundEvent event, LoadState state) {
        return switch (event.payload()) {
            case EventPayload.ActionOutcome outcome -> filterOutcome(outcome);
            case EventPayload.TimerFired fired -> state.isTimerCurrent(fired)
                    ? Optional.empty()
                    : Optional.of("stale timer " + fired.timerId() + ": " + state.openAsk(fired.askId())
                            .map(ask -> "its ask is at step " + ask.step())
                            .orElse("its ask is not open"));
            case EventPayload.LoadAssigned assigned -> state.refusesAssignmentBy(event.source())
                    ? Optional.of("refused: load " + state.loadId() + " is assigned by source " + state.assignedBy()
                            + "; source " + event.source() + " may not re-assign it (to client " + assigned.clientId() + ")")
                    : Optional.empty();
            case EventPayload.LocationPing ping -> Optional.empty();
            case EventPayload.InboundSms sms -> Optional.empty();
            case EventPayload.Extension extension -> Optional.empty();
        };
    }

    private static Optional<String> filterOutcome(EventPayload.ActionOutcome outcome) {
        if (outcome.status() == OutcomeStatus.DELIVERED) {
            return Optional.of("delivered: " + outcome.outboxId());
        }
        boolean external = ActionType.find(outcome.actionType()).filter(t -> !t.alertsOpsOnFailure()).isPresent();
        if (outcome.heroChannel() || !external) {
            return Optional.of("failed " + outcome.actionType() + " is a Hero-channel or internal failure: "
                    + "the dispatcher raised an OpsAlert (" + outcome.outboxId() + ")");
        }
        return Optional.empty();
    }
}
