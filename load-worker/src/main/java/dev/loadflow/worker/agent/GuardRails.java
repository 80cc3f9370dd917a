package dev.loadflow.worker.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.ActionType;
import dev.loadflow.model.action.Urgency;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.OutcomeStatus;
import dev.loadflow.model.id.ActionKey;
import dev.loadflow.model.id.EventIds;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.model.policy.Decision;
import dev.loadflow.model.policy.SopPolicy;
import dev.loadflow.model.policy.SopRules;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.model.projection.OpenAsk;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Turns a model's tool calls into a {@link Decision}, or refuses them. The model chooses what
 * to do and says it in words (texts, titles, how long to wait); the keys of the actions come
 * from the event and the load's state exactly as the SOP derives them, so a re-decision after a
 * conflict yields the same keys and the outbox's uniqueness holds. The client's rules bound
 * what the model may do:
 * <ul>
 *   <li>an SMS goes only to the load's driver, opens an ETA ask on a ping of a risk the SOP asks
 *       on (none may be open) or takes the next step of the ask a current timer belongs to, and
 *       never past the SOP's attempts; it comes with exactly one timer, which fires within twice
 *       the attempt's wait;</li>
 *   <li>no text goes outside the client's SMS hours unless its attempt is urgent: such a request
 *       becomes the wait for the hours, as the SOP's would, and the SOP's text goes when they open;</li>
 *   <li>a Hero task answers a timer whose ask is spent, a failed SMS, or a ping on a load with
 *       no driver; one per decision, and never a second for the same ask (no Hero task loop);</li>
 *   <li>Slack posts and timer cancellations name an open ask, each at most once per ask; a stage
 *       update follows a new assignment's stage;</li>
 *   <li>no two actions of one answer share a key (the outbox would refuse the append).</li>
 * </ul>
 */
public final class GuardRails {

    private static final int MAX_REASON = 500;

    private GuardRails() {
    }

    /**
     * The decision the calls make for {@code event}.
     *
     * @param text the model's words beside its calls: the decision's reason when it gave any
     * @throws RefusedAnswer when a call is unknown, malformed or breaks a rule
     */
    public static Decision check(List<ToolCall> calls, String text, InboundEvent event, LoadState state, SopRules rules,
                                 Instant now) {
        Calls parsed = new Calls(calls);
        List<Action> actions = new ArrayList<>();
        Set<String> closed = new LinkedHashSet<>();
        boolean hero = false;

        List<JsonNode> sms = parsed.of(ActionType.SEND_SMS);
        List<JsonNode> timers = parsed.of(ActionType.SET_TIMER);
        if (sms.size() != timers.size() || sms.size() > 1) {
            throw new RefusedAnswer("an ETA request is one send_sms with one set_timer (the wait for the answer); got "
                    + sms.size() + " send_sms and " + timers.size() + " set_timer");
        }
        if (!sms.isEmpty()) {
            Step step = nextStep(event, state, rules);
            if (event.payload() instanceof EventPayload.LocationPing ping && !rules.asksOn(ping.risk())) {
                throw new RefusedAnswer("the SOP opens an ETA ask on pings of risk " + rules.askOn() + "; this one is "
                        + ping.risk().wire());
            }
            String to = text(sms.getFirst(), "to", ActionType.SEND_SMS);
            if (!to.equals(state.driverPhone())) {
                throw new RefusedAnswer("send_sms goes only to the load's driver, " + state.driverPhone() + "; got " + to);
            }
            long seconds = integer(timers.getFirst(), "after_seconds", ActionType.SET_TIMER);
            Duration wait = Duration.ofSeconds(seconds);
            Duration longest = rules.attempt(step.attempt()).waitFor().multipliedBy(2);
            if (seconds < 1 || wait.compareTo(longest) > 0) {
                throw new RefusedAnswer("set_timer after_seconds is between 1 and " + longest.toSeconds()
                        + " (twice the wait of attempt " + step.attempt() + "); got " + seconds);
            }
            String smsText = text(sms.getFirst(), "text", ActionType.SEND_SMS);
            Instant textable = rules.attempt(step.attempt()).urgent() ? now : rules.textableAt(now);
            if (textable.isAfter(now)) {
                // outside the SMS hours: the wait for them, as the SOP's; the SOP's text goes when they open
                actions.add(new Action.SetTimer(TimerId.window(state.loadId(), step.ask(), step.attempt()), textable));
            } else {
                actions.add(new Action.SendSms(step.ask(), step.attempt(), to, smsText));
                actions.add(new Action.SetTimer(TimerId.of(state.loadId(), step.ask(), step.attempt()), now.plus(wait)));
            }
        }

        List<JsonNode> tasks = parsed.of(ActionType.CREATE_HERO_TASK);
        if (tasks.size() > 1) {
            throw new RefusedAnswer("at most one create_hero_task per decision; got " + tasks.size());
        }
        if (!tasks.isEmpty()) {
            HeroSubject subject = heroSubject(event, state, rules);
            if (state.outcomes().keySet().stream().anyMatch(id -> id.startsWith(state.loadId() + "/" + subject.subject() + "/")
                    && id.endsWith("/" + ActionType.CREATE_HERO_TASK.wire()))) {
                throw new RefusedAnswer("a Hero task was already created for " + subject.subject() + " (no Hero task loop)");
            }
            JsonNode task = tasks.getFirst();
            actions.add(new Action.CreateHeroTask(subject.subject(), subject.attempt(), text(task, "title", ActionType.CREATE_HERO_TASK),
                    urgency(task), text(task, "body", ActionType.CREATE_HERO_TASK)));
            hero = true;
            if (subject.closes()) {
                closed.add(subject.asks());
            }
        }

        Set<String> cancelled = new LinkedHashSet<>();
        for (JsonNode cancel : parsed.of(ActionType.CANCEL_TIMER)) {
            OpenAsk ask = onceFor(cancelled, openAsk(state, text(cancel, "ask_id", ActionType.CANCEL_TIMER), ActionType.CANCEL_TIMER),
                    ActionType.CANCEL_TIMER);
            if (ask.currentTimer() == null) {
                throw new RefusedAnswer("ask " + ask.askId() + " has no timer to cancel");
            }
            if (!(event.payload() instanceof EventPayload.InboundSms)) {
                throw new RefusedAnswer("cancel_timer answers the driver's SMS; this event is a " + event.type().wire());
            }
            actions.add(new Action.CancelTimer(ask.currentTimer()));
            closed.add(ask.askId().toString());
        }
        Set<String> posted = new LinkedHashSet<>();
        for (JsonNode post : parsed.of(ActionType.POST_HERO_SLACK)) {
            OpenAsk ask = onceFor(posted, openAsk(state, text(post, "ask_id", ActionType.POST_HERO_SLACK), ActionType.POST_HERO_SLACK),
                    ActionType.POST_HERO_SLACK);
            actions.add(new Action.PostHeroSlack(ask.askId().toString(), ask.step(), rules.heroSlackChannel(),
                    text(post, "text", ActionType.POST_HERO_SLACK)));
            closed.add(ask.askId().toString());
        }
        List<JsonNode> stages = parsed.of(ActionType.UPDATE_STAGE);
        if (!stages.isEmpty()) {
            if (stages.size() > 1 || !(event.payload() instanceof EventPayload.LoadAssigned assigned)
                    || state.stage() == null || assigned.stage().equals(state.stage())) {
                throw new RefusedAnswer("update_stage follows a new assignment that moves an assigned load to another stage");
            }
            String stage = text(stages.getFirst(), "stage", ActionType.UPDATE_STAGE);
            if (!stage.equals(assigned.stage())) {
                throw new RefusedAnswer("update_stage sets the assignment's stage, " + assigned.stage() + "; got " + stage);
            }
            String subject = dev.loadflow.model.id.EventIds.eventSubject(event.eventId());
            actions.add(new Action.UpdateStage(subject, 1, stage));
            List<java.net.URI> webhooks = rules.stageWebhooks();
            if (!webhooks.isEmpty()) {
                actions.add(new Action.StageChanged(subject, 1, stage, event.occurredAt(), webhooks, assigned.clientId()));
            }
        }
        Set<ActionKey> keys = new LinkedHashSet<>();
        for (Action action : actions) {
            if (!keys.add(action.key(state.loadId()))) {
                // the outbox would refuse the append: a duplicate action key is a decision bug, never an answer
                throw new RefusedAnswer("two actions of this answer have the key " + action.key(state.loadId()));
            }
        }
        String reason = text == null || text.isBlank()
                ? "llm: " + (calls.isEmpty() ? "no action" : String.join(", ", calls.stream().map(ToolCall::name).toList()))
                : text.strip();
        return new Decision(actions, hero, reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) + "…" : reason,
                List.copyOf(closed));
    }

    private record Step(AskId ask, int attempt) {
    }

    /** The ask and attempt an SMS of this event belongs to: a ping opens one, a current timer takes the next step. */
    private static Step nextStep(InboundEvent event, LoadState state, SopRules rules) {
        if (state.driverPhone() == null) {
            throw new RefusedAnswer("the load has no driver to text");
        }
        return switch (event.payload()) {
            case EventPayload.LocationPing ping -> {
                for (OpenAsk open : state.openAsks().values()) {
                    if (open.askId().kind().equals(SopPolicy.ETA_REQUEST)) {
                        throw new RefusedAnswer("ETA ask " + open.askId() + " is already open at step " + open.step()
                                + ": a ping opens no second one");
                    }
                }
                yield new Step(AskId.of(SopPolicy.ETA_REQUEST, event.eventId()), 1);
            }
            case EventPayload.TimerFired fired -> {
                OpenAsk ask = state.openAsk(fired.askId()).orElseThrow(() -> new RefusedAnswer("ask " + fired.askId() + " is not open"));
                int attempt = ask.step() + 1;
                if (attempt > rules.maxAttempts()) {
                    throw new RefusedAnswer("attempt " + attempt + " of ask " + ask.askId() + " exceeds the client's max-attempts ("
                            + rules.maxAttempts() + "): hand it to a Hero with create_hero_task");
                }
                yield new Step(ask.askId(), attempt);
            }
            default -> throw new RefusedAnswer("send_sms answers a location ping or a timer; this event is a " + event.type().wire());
        };
    }

    /** @param asks the ask the task closes when {@code closes}: its subject, or the ask of the row it escalates */
    private record HeroSubject(String subject, int attempt, boolean closes, String asks) {

        HeroSubject(String subject, int attempt, boolean closes) {
            this(subject, attempt, closes, subject);
        }
    }

    private static HeroSubject heroSubject(InboundEvent event, LoadState state, SopRules rules) {
        return switch (event.payload()) {
            case EventPayload.TimerFired fired -> {
                OpenAsk ask = state.openAsk(fired.askId()).orElseThrow(() -> new RefusedAnswer("ask " + fired.askId() + " is not open"));
                yield new HeroSubject(ask.askId().toString(), ask.step(), true);
            }
            case EventPayload.ActionOutcome outcome when outcome.status() == OutcomeStatus.FAILED && !outcome.heroChannel() -> {
                ActionKey failed = ActionKey.parse(outcome.outboxId());
                ActionKey escalation = ActionKey.escalation(failed, outcome.ambiguous(), outcome.round());
                yield new HeroSubject(escalation.subject(), escalation.attempt(), state.openAsk(failed.subject()).isPresent(),
                        failed.subject());
            }
            case EventPayload.LocationPing ping when state.driverPhone() == null -> {
                ActionKey key = ActionKey.heroTaskAfterDuplicate(state.loadId(), event.eventId());
                yield new HeroSubject(key.subject(), key.attempt(), false);
            }
            // an event type added to loadflow: the rules say nothing of it, so a person may be asked to look, once per event
            case EventPayload.Extension added -> new HeroSubject(EventIds.eventSubject(event.eventId()), 1, false);
            default -> throw new RefusedAnswer("create_hero_task answers a spent ask's timer, a failed SMS, a ping on a "
                    + "load with no driver, or an event of an added type; not this " + event.type().wire());
        };
    }

    /** {@code ask}, refused when this answer already called {@code tool} for it. */
    private static OpenAsk onceFor(Set<String> done, OpenAsk ask, ActionType tool) {
        if (!done.add(ask.askId().toString())) {
            throw new RefusedAnswer(tool.wire() + " is called once per ask; this answer calls it twice for " + ask.askId());
        }
        return ask;
    }

    private static OpenAsk openAsk(LoadState state, String askId, ActionType tool) {
        return state.openAsk(askId).orElseThrow(() -> new RefusedAnswer(tool.wire() + ": ask '" + askId
                + "' is not open; the open asks are " + state.openAsks().keySet()));
    }

    private static Urgency urgency(JsonNode task) {
        String value = text(task, "urgency", ActionType.CREATE_HERO_TASK);
        return Arrays.stream(Urgency.values()).filter(u -> u.name().equalsIgnoreCase(value)).findFirst()
                .orElseThrow(() -> new RefusedAnswer("create_hero_task urgency is one of "
                        + Arrays.stream(Urgency.values()).map(u -> u.name().toLowerCase(Locale.ROOT)).toList() + "; got " + value));
    }

    private static String text(JsonNode args, String field, ActionType tool) {
        JsonNode value = args.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw new RefusedAnswer(tool.wire() + " needs '" + field + "', a non-empty string");
        }
        return value.asText();
    }

    private static long integer(JsonNode args, String field, ActionType tool) {
        JsonNode value = args.get(field);
        if (value == null || !value.canConvertToLong() || !value.isIntegralNumber()) {
            throw new RefusedAnswer(tool.wire() + " needs '" + field + "', a whole number");
        }
        return value.asLong();
    }

    /** The calls by tool, their arguments parsed; an unknown tool or arguments that are not a JSON object are refused. */
    private static final class Calls {

        private final List<ActionType> types = new ArrayList<>();
        private final List<JsonNode> arguments = new ArrayList<>();

        Calls(List<ToolCall> calls) {
            for (ToolCall call : calls) {
                ActionType type = AgentTools.TOOLS.stream().filter(t -> t.wire().equals(call.name())).findFirst()
                        .orElseThrow(() -> new RefusedAnswer("unknown tool '" + call.name() + "'; the tools are "
                                + AgentTools.TOOLS.stream().map(ActionType::wire).toList()));
                JsonNode args;
                try {
                    args = JsonReader.MAPPER.readTree(call.arguments() == null || call.arguments().isBlank() ? "{}" : call.arguments());
                } catch (JsonProcessingException e) {
                    throw new RefusedAnswer(call.name() + ": its arguments are not JSON (" + e.getOriginalMessage() + ")");
                }
                if (!args.isObject()) {
                    throw new RefusedAnswer(call.name() + ": its arguments are a JSON object");
                }
                types.add(type);
                arguments.add(args);
            }
        }

        List<JsonNode> of(ActionType type) {
            List<JsonNode> found = new ArrayList<>();
            for (int i = 0; i < types.size(); i++) {
                if (types.get(i) == type) {
                    found.add(arguments.get(i));
                }
            }
            return found;
        }
    }
}
