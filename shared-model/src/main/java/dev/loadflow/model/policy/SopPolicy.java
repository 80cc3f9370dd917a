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
 *   <li>a ping of a risk the client's SOP asks on (high, unless it says otherwise), with no open
 *       ETA ask, opens one: {@code send_sms} and {@code set_timer(now + the attempt's wait)};</li>
 *   <li>a current timer with attempts left takes the next step (SMS again, new timer); when
 *       the attempts are spent, a {@code create_hero_task} of the SOP's priority and the ask closes;</li>
 *   <li>an attempt's text decided outside the client's SMS hours waits for them on a durable timer
 *       ({@link TimerId#window}) unless the attempt is urgent; when that timer fires, the text goes;</li>
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
 * Every decision names the SOP version it followed. A new ask follows the client's newest version;
 * an open ask follows the version that opened it, for its attempts, waits, texts, its answer's
 * Slack channel and its Hero task.
 */
public final class SopPolicy implements DecisionPolicy {

    public static final String ETA_REQUEST = "eta_request";

    private final SopBook sops;

    /** @param sops the clients' SOP versions */
    public SopPolicy(SopBook sops) {
        this.sops = sops;
    }

    /** @param rulesByClient the configured rules of a client id (or of {@code null}: an unassigned load) */
    public SopPolicy(Function<String, SopRules> rulesByClient) {
        this(SopBook.configured(rulesByClient));
    }

    @Override
    public Decision decide(InboundEvent event, LoadState state, Instant now) {
        Decision decision = rules(event, state, now);
        String client = event.payload() instanceof EventPayload.LoadAssigned assigned && !state.isAssigned()
                ? assigned.clientId() : state.clientId();
        return decision.sop() == null ? decision.under(sops.current(client).ref()) : decision;
    }

    private Decision rules(InboundEvent event, LoadState state, Instant now) {
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
        SopBook.Sop sop = sops.current(assigned.clientId());
        List<URI> webhooks = sop.rules().stageWebhooks();
        if (!webhooks.isEmpty()) {
            actions.add(new Action.StageChanged(subject, 1, assigned.stage(), event.occurredAt(), webhooks, assigned.clientId()));
        }
        return new Decision(actions, false, who + ", stage " + state.stage() + " -> " + assigned.stage()
                + (webhooks.isEmpty() ? "" : ", told to " + webhooks.size() + " webhook(s)"), List.of()).under(sop.ref());
    }

    private Decision onPing(InboundEvent event, EventPayload.LocationPing ping, LoadState state, Instant now) {
        SopBook.Sop sop = sops.current(state.clientId());
        if (!sop.rules().asksOn(ping.risk())) {
            return Decision.noop(ping.risk().wire() + "-risk ping" + (ping.risk() == Risk.HIGH ? ": the SOP opens no ask on it" : ""))
                    .under(sop.ref());
        }
        for (OpenAsk ask : state.openAsks().values()) {
            if (ask.askId().kind().equals(ETA_REQUEST)) {
                return Decision.noop("high-risk ping while ETA ask " + ask.askId() + " is open at step " + ask.step());
            }
        }
        if (state.driverPhone() == null) {
            ActionKey key = ActionKey.heroTaskAfterDuplicate(state.loadId(), event.eventId());
            String risk = ping.risk().wire() + "-risk";
            return new Decision(List.of(new Action.CreateHeroTask(key.subject(), 1,
                    capitalized(risk) + " ping on load " + state.loadId() + " with no driver assigned", Urgency.URGENT,
                    "A " + risk + " location ping arrived before LoadAssigned; nobody can be asked for an ETA.")),
                    true, risk + " ping on an unassigned load", List.of()).under(sop.ref());
        }
        AskId ask = AskId.of(ETA_REQUEST, event.eventId());
        Step first = step(state, sop.rules(), ask, 1, now);
        return new Decision(first.actions(), false, ping.risk().wire() + "-risk ping: ETA ask opened" + first.note(),
                List.of()).under(sop.ref());
    }

    private static String capitalized(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private Decision onTimer(EventPayload.TimerFired fired, LoadState state, Instant now) {
        OpenAsk ask = state.openAsk(fired.askId()).orElseThrow(
                () -> new IllegalStateException("the filter lets only current timers through: " + fired.timerId()));
        SopBook.Sop sop = sops.at(state.clientId(), ask.sopVersion());
        SopRules rules = sop.rules();
        if (ask.waitsForWindow()) {
            return new Decision(send(state, rules, ask.askId(), ask.step(), now), false,
                    "SMS hours open: attempt " + ask.step() + " sent", List.of()).under(sop.ref());
        }
        if (ask.step() < rules.maxAttempts()) {
            Step next = step(state, rules, ask.askId(), ask.step() + 1, now);
            return new Decision(next.actions(), false,
                    "no answer to attempt " + ask.step() + ": attempt " + (ask.step() + 1) + next.note(), List.of())
                    .under(sop.ref());
        }
        Action task = new Action.CreateHeroTask(ask.askId().toString(), ask.step(),
                "Driver not answering on load " + state.loadId(), rules.heroTaskPriority(),
                ask.step() + " ETA requests to " + state.driverPhone() + " since " + ask.openedAt()
                        + " went unanswered. Please call the driver.");
        return new Decision(List.of(task), true, "no answer after " + ask.step() + " attempts: Hero task",
                List.of(ask.askId().toString())).under(sop.ref());
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
        List<Action> actions = new ArrayList<>();
        List<String> closed = new ArrayList<>();
        SopBook.Sop first = null;
        for (OpenAsk ask : state.openAsks().values()) {
            SopBook.Sop sop = sops.at(state.clientId(), ask.sopVersion());
            first = first == null ? sop : first;
            if (ask.currentTimer() != null) {
                actions.add(new Action.CancelTimer(ask.currentTimer()));
            }
            actions.add(new Action.PostHeroSlack(ask.askId().toString(), ask.step(), sop.rules().heroSlackChannel(),
                    "Load " + state.loadId() + ": driver answered " + ask.askId().kind() + ": \"" + sms.text() + "\""));
            closed.add(ask.askId().toString());
        }
        return new Decision(actions, false, "driver answered " + closed, closed).under(first.ref());
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

    /** An attempt's actions, and what the reason adds (the wait for the SMS hours). */
    private record Step(List<Action> actions, String note) {
    }

    /**
     * Attempt {@code attempt} of {@code ask}: its text and the wait for an answer; or, outside the
     * SMS hours and not urgent, a timer for when they open.
     */
    private static Step step(LoadState state, SopRules rules, AskId ask, int attempt, Instant now) {
        Instant textable = rules.attempt(attempt).urgent() ? now : rules.textableAt(now);
        if (textable.isAfter(now)) {
            return new Step(List.of(new Action.SetTimer(TimerId.window(state.loadId(), ask, attempt), textable)),
                    ", its text waits for the SMS hours (" + textable + ")");
        }
        return new Step(send(state, rules, ask, attempt, now), "");
    }

    private static List<Action> send(LoadState state, SopRules rules, AskId ask, int attempt, Instant now) {
        return List.of(
                new Action.SendSms(ask, attempt, state.driverPhone(), rules.text(attempt, state.loadId(), state.stage())),
                new Action.SetTimer(TimerId.of(state.loadId(), ask, attempt), now.plus(rules.attempt(attempt).waitFor())));
    }
}
