package dev.loadflow.model.policy;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Urgency;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.OutcomeStatus;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.id.ActionKey;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.EventIds;
import dev.loadflow.model.id.InboundIds;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.model.projection.OpenAsk;

import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The deterministic SOP of docs/design.md, per client:
 * <ul>
 *   <li>a high-risk ping with no open ETA ask opens one: {@code send_sms} and
 *       {@code set_timer(now + retry-after)};</li>
 *   <li>a current timer with attempts left takes the next step (SMS again, new timer); when
 *       the attempts are spent, an urgent {@code create_hero_task} and the ask closes;</li>
 *   <li>a driver's SMS answers every open ask: {@code cancel_timer} and {@code post_hero_slack};</li>
 *   <li>an SMS from a number that is not the load's driver's answers no ask: a Hero task says
 *       who wrote what ({@link #fromStranger});</li>
 *   <li>an SMS kept on a load of its own (a number no load has, {@link InboundIds#STRANGER}; a
 *       driver whose loads could not be told apart, {@link InboundIds#UNROUTED}): the first of
 *       the day asks the Hero desk, the rest join it;</li>
 *   <li>a failed SMS (an external action) → an urgent {@code create_hero_task}, unless the
 *       same row was also delivered (ADR 0003, "late FAILED next to DELIVERED"); an ambiguous one
 *       (it may not have reached the driver) → an urgent task to call; a row that fails again after
 *       a replay → a task again, whether or not its ask is still open;</li>
 *   <li>a later {@code LoadAssigned} that moves the load to another stage → {@code update_stage},
 *       and {@code stage_changed} to the client's stage webhooks when it has any (the first
 *       assignment gives the load its stage: nothing changed).</li>
 * </ul>
 */
public final class SopPolicy implements DecisionPolicy {

    public static final String ETA_REQUEST = "eta_request";

    private final Function<String, SopRules> rulesByClient;

    /** @param rulesByClient the rules of a client id (or of {@code null}: an unassigned load) */
    public SopPolicy(Function<String, SopRules> rulesByClient) {
        this.rulesByClient = rulesByClient;
    }

    @Override
    public Decision decide(InboundEvent event, LoadState state, Instant now) {
        return switch (event.payload()) {
            case EventPayload.LoadAssigned assigned -> onAssigned(event, assigned, state);
            case EventPayload.LocationPing ping -> onPing(event, ping, state, now);
            case EventPayload.TimerFired fired -> onTimer(fired, state, now);
            case EventPayload.InboundSms sms -> InboundIds.isStrangerLoad(state.loadId()) || InboundIds.isUnroutedLoad(state.loadId())
                    ? onDeskSms(event, sms, state)
                    : fromStranger(sms, state) ? onStrangerSms(event, sms, state) : onDriverSms(sms, state);
            case EventPayload.ActionOutcome outcome -> onFailedOutcome(outcome, state);
            case EventPayload.Extension extension -> Decision.noop("the SOP has no rule for " + extension.type().wire());
        };
    }

    private Decision onAssigned(InboundEvent event, EventPayload.LoadAssigned assigned, LoadState state) {
        String who = "assigned to " + assigned.clientId() + ", driver " + assigned.driverPhone();
        if (state.stage() == null) {
            return Decision.noop(who + ", stage " + assigned.stage());
        }
        if (assigned.stage().equals(state.stage())) {
            return Decision.noop(who + ", stage still " + assigned.stage());
        }
        String subject = EventIds.eventSubject(event.eventId());
        List<Action> actions = new ArrayList<>();
        actions.add(new Action.UpdateStage(subject, 1, assigned.stage()));
        List<URI> webhooks = rulesByClient.apply(assigned.clientId()).stageWebhooks();
        if (!webhooks.isEmpty()) {
            actions.add(new Action.StageChanged(subject, 1, assigned.stage(), event.occurredAt(), webhooks, assigned.clientId()));
        }
        return new Decision(actions, false, who + ", stage " + state.stage() + " -> " + assigned.stage()
                + (webhooks.isEmpty() ? "" : ", told to " + webhooks.size() + " webhook(s)"), List.of());
    }

    private Decision onPing(InboundEvent event, EventPayload.LocationPing ping, LoadState state, Instant now) {
        if (ping.risk() != Risk.HIGH) {
            return Decision.noop(ping.risk().wire() + "-risk ping");
        }
        for (OpenAsk ask : state.openAsks().values()) {
            if (ask.askId().kind().equals(ETA_REQUEST)) {
                return Decision.noop("high-risk ping while ETA ask " + ask.askId() + " is open at step " + ask.step());
            }
        }
        if (state.driverPhone() == null) {
            ActionKey key = ActionKey.heroTaskAfterDuplicate(state.loadId(), event.eventId());
            return new Decision(List.of(new Action.CreateHeroTask(key.subject(), 1,
                    "High-risk ping on load " + state.loadId() + " with no driver assigned", Urgency.URGENT,
                    "A high-risk location ping arrived before LoadAssigned; nobody can be asked for an ETA.")),
                    true, "high-risk ping on an unassigned load", List.of());
        }
        SopRules rules = rulesByClient.apply(state.clientId());
        AskId ask = AskId.of(ETA_REQUEST, event.eventId());
        return new Decision(step(state, rules, ask, 1, now), false, "high-risk ping: ETA ask opened", List.of());
    }

    private Decision onTimer(EventPayload.TimerFired fired, LoadState state, Instant now) {
        OpenAsk ask = state.openAsk(fired.askId()).orElseThrow(
                () -> new IllegalStateException("the filter lets only current timers through: " + fired.timerId()));
        SopRules rules = rulesByClient.apply(state.clientId());
        if (ask.step() < rules.maxAttempts()) {
            return new Decision(step(state, rules, ask.askId(), ask.step() + 1, now), false,
                    "no answer to attempt " + ask.step() + ": attempt " + (ask.step() + 1), List.of());
        }
        Action task = new Action.CreateHeroTask(ask.askId().toString(), ask.step(),
                "Driver not answering on load " + state.loadId(), Urgency.URGENT,
                ask.step() + " ETA requests to " + state.driverPhone() + " since " + ask.openedAt()
                        + " went unanswered. Please call the driver.");
        return new Decision(List.of(task), true, "no answer after " + ask.step() + " attempts: Hero task",
                List.of(ask.askId().toString()));
    }

    /**
     * Whether {@code sms} comes from a number other than the load's driver's (or the load has no
     * driver yet). Such a message answers no ask, whoever decides: anyone who learns the load's
     * number could otherwise silence the driver's reminders.
     */
    public static boolean fromStranger(EventPayload.InboundSms sms, LoadState state) {
        return state.driverPhone() == null || !state.driverPhone().equals(sms.from());
    }

    /** The most of a sender's text a Hero task carries (the whole SMS is on the load's story). */
    static final int TASK_TEXT = 280;

    /**
     * An SMS no load could be given: kept on a load of its sender's day, whose first SMS asks the
     * Hero desk once; the day's later SMS join it there (one task per number per day, whatever a
     * sender sends).
     */
    private Decision onDeskSms(InboundEvent event, EventPayload.InboundSms sms, LoadState state) {
        if (state.version() > 0) {
            return Decision.noop("kept with the day's earlier SMS of this sender: their Hero task covers it");
        }
        ActionKey key = ActionKey.heroTaskAfterDuplicate(state.loadId(), event.eventId());
        String text = sms.text().length() > TASK_TEXT ? sms.text().substring(0, TASK_TEXT) + "…" : sms.text();
        boolean stranger = InboundIds.isStrangerLoad(state.loadId());
        String title = stranger ? "Unverified sender: an SMS from a number no load has"
                : "A driver's SMS that fits several loads";
        String body = stranger
                ? sms.from() + " wrote: \"" + text + "\". No load is assigned to that number, and a sender's number "
                        + "proves nothing (unverified). The day's later SMS from it are on load " + state.loadId() + "."
                : sms.from() + " wrote: \"" + text + "\". That driver has several current loads and neither the number "
                        + "they wrote to nor an open ask tells which one this answers: find their loads by driver and tell "
                        + "the right one. The day's later SMS from them are on load " + state.loadId() + ".";
        return new Decision(List.of(new Action.CreateHeroTask(key.subject(), 1, title, Urgency.NORMAL, body)), true,
                stranger ? "SMS from a number no load has: Hero task" : "SMS that fits several loads: Hero task", List.of());
    }

    private Decision onStrangerSms(InboundEvent event, EventPayload.InboundSms sms, LoadState state) {
        ActionKey key = ActionKey.heroTaskAfterDuplicate(state.loadId(), event.eventId());
        return new Decision(List.of(new Action.CreateHeroTask(key.subject(), 1,
                "An SMS from a number that is not the driver's on load " + state.loadId(), Urgency.NORMAL,
                sms.from() + " wrote: \"" + sms.text() + "\". It answered no ask"
                        + (state.openAsks().isEmpty() ? "." : "; " + state.openAsks().size() + " still open."))),
                true, "SMS from a number that is not the driver's: Hero task", List.of());
    }

    private Decision onDriverSms(EventPayload.InboundSms sms, LoadState state) {
        if (state.openAsks().isEmpty()) {
            return Decision.noop("driver message with no open ask");
        }
        SopRules rules = rulesByClient.apply(state.clientId());
        List<Action> actions = new ArrayList<>();
        List<String> closed = new ArrayList<>();
        for (OpenAsk ask : state.openAsks().values()) {
            if (ask.currentTimer() != null) {
                actions.add(new Action.CancelTimer(ask.currentTimer()));
            }
            actions.add(new Action.PostHeroSlack(ask.askId().toString(), ask.step(), rules.heroSlackChannel(),
                    "Load " + state.loadId() + ": driver answered " + ask.askId().kind() + ": \"" + sms.text() + "\""));
            closed.add(ask.askId().toString());
        }
        return new Decision(actions, false, "driver answered " + closed, closed);
    }

    private Decision onFailedOutcome(EventPayload.ActionOutcome outcome, LoadState state) {
        if (outcome.status() != OutcomeStatus.FAILED) {
            return Decision.noop("outcome " + outcome.status().wire());
        }
        if (state.wasDelivered(outcome.outboxId())) {
            return Decision.noop("failed outcome of " + outcome.outboxId() + ", which was also delivered");
        }
        ActionKey failed = ActionKey.parse(outcome.outboxId());
        // a row that ended again after an operator replayed or resent it is escalated whatever became of its ask
        if (outcome.round() == 1 && state.openAsk(failed.subject()).isEmpty()) {
            return Decision.noop((outcome.ambiguous() ? "ambiguous " : "failed ") + outcome.actionType() + " for "
                    + failed.subject() + ", which is no longer open");
        }
        ActionKey escalation = ActionKey.escalation(failed, outcome.ambiguous(), outcome.round());
        Action task = outcome.ambiguous()
                ? new Action.CreateHeroTask(escalation.subject(), escalation.attempt(),
                        "SMS to the driver of load " + state.loadId() + " may not have reached the driver: call them",
                        Urgency.URGENT, "Sending " + outcome.outboxId() + " may or may not have reached the provider ("
                                + outcome.failure() + "); it is not sent again until an operator resolves it.")
                : new Action.CreateHeroTask(escalation.subject(), escalation.attempt(),
                        "SMS to the driver of load " + state.loadId() + " failed: call them", Urgency.URGENT,
                        "Sending " + outcome.outboxId() + " failed" + (outcome.round() > 1 ? " again after a replay" : "")
                                + ": " + outcome.failure());
        return new Decision(List.of(task), true, (outcome.ambiguous() ? "ambiguous " : "failed ") + outcome.actionType()
                + ": Hero task", state.openAsk(failed.subject()).isPresent() ? List.of(failed.subject()) : List.of());
    }

    private static List<Action> step(LoadState state, SopRules rules, AskId ask, int attempt, Instant now) {
        return List.of(
                new Action.SendSms(ask, attempt, state.driverPhone(), rules.etaRequest(state.loadId(), attempt)),
                new Action.SetTimer(TimerId.of(state.loadId(), ask, attempt), now.plus(rules.retryAfter())));
    }
}
