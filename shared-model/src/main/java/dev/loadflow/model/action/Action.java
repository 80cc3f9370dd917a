package dev.loadflow.model.action;

import dev.loadflow.model.id.ActionKey;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One effect a decision asks for. Actions are data: the decision commits them as outbox rows,
 * and the dispatcher carries them out. Every action has a deterministic {@link ActionKey},
 * built from its subject (an ask id, or {@code evt:{eventId}}), its attempt and its type.
 *
 * <p>The records below are the built-in actions; an action type added to loadflow is a record
 * implementing {@link Extension}, with its {@link ActionKind} registered.
 */
public sealed interface Action
        permits Action.SendSms, Action.CreateHeroTask, Action.PostHeroSlack,
        Action.SetTimer, Action.CancelTimer, Action.UpdateStage, Action.StageChanged, Action.Extension {

    ActionType type();

    /** The ask id, or {@code evt:{eventId}}, this action belongs to. */
    String subject();

    int attempt();

    default ActionKey key(String loadId) {
        return new ActionKey(loadId, subject(), attempt(), type());
    }

    /** An SMS to a driver, as step {@code attempt} of an ask. */
    record SendSms(AskId askId, int attempt, String to, String text) implements Action {
        public SendSms {
            Objects.requireNonNull(askId, "askId");
            Objects.requireNonNull(to, "to");
            Objects.requireNonNull(text, "text");
        }

        @Override
        public ActionType type() {
            return ActionType.SEND_SMS;
        }

        @Override
        public String subject() {
            return askId.toString();
        }
    }

    /** A task for a human operator. */
    record CreateHeroTask(String subject, int attempt, String title, Urgency urgency, String body) implements Action {
        public CreateHeroTask {
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(title, "title");
            Objects.requireNonNull(urgency, "urgency");
            Objects.requireNonNull(body, "body");
        }

        @Override
        public ActionType type() {
            return ActionType.CREATE_HERO_TASK;
        }
    }

    /** A post in the Hero Slack channel. */
    record PostHeroSlack(String subject, int attempt, String channel, String text) implements Action {
        public PostHeroSlack {
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(channel, "channel");
            Objects.requireNonNull(text, "text");
        }

        @Override
        public ActionType type() {
            return ActionType.POST_HERO_SLACK;
        }
    }

    /** A durable timer: {@code fireAt} = the decision's time + the client's retry-after. */
    record SetTimer(TimerId timerId, Instant fireAt) implements Action {
        public SetTimer {
            Objects.requireNonNull(timerId, "timerId");
            Objects.requireNonNull(fireAt, "fireAt");
        }

        @Override
        public ActionType type() {
            return ActionType.SET_TIMER;
        }

        @Override
        public String subject() {
            return timerId.subject();
        }

        @Override
        public int attempt() {
            return timerId.attempt();
        }
    }

    /** Cancels a timer; housekeeping only, since a stale timer is filtered when it fires anyway. */
    record CancelTimer(TimerId timerId) implements Action {
        public CancelTimer {
            Objects.requireNonNull(timerId, "timerId");
        }

        @Override
        public ActionType type() {
            return ActionType.CANCEL_TIMER;
        }

        @Override
        public String subject() {
            return timerId.subject();
        }

        @Override
        public int attempt() {
            return timerId.attempt();
        }
    }

    /** Moves the load to another stage. */
    record UpdateStage(String subject, int attempt, String stage) implements Action {
        public UpdateStage {
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(stage, "stage");
        }

        @Override
        public ActionType type() {
            return ActionType.UPDATE_STAGE;
        }
    }

    /**
     * Tells a client's stage webhooks that the load moved to {@code stage} at {@code at}: each
     * gets {@code POST {url}} once, with the action key as its {@code Idempotency-Key}. The
     * webhooks are the client's at decision time, so a replay reaches the same receivers.
     * {@code clientId} names whose they are (the dispatcher signs with that client's secret); a row
     * written before it was kept has none, and goes unsigned.
     */
    record StageChanged(String subject, int attempt, String stage, Instant at, List<URI> webhooks, String clientId)
            implements Action {

        /** A stage change whose client is not known (unsigned). */
        public StageChanged(String subject, int attempt, String stage, Instant at, List<URI> webhooks) {
            this(subject, attempt, stage, at, webhooks, null);
        }

        public StageChanged {
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(stage, "stage");
            Objects.requireNonNull(at, "at");
            webhooks = List.copyOf(webhooks);
            if (webhooks.isEmpty()) {
                throw new IllegalArgumentException("a stage change goes to at least one webhook");
            }
            for (URI url : webhooks) {
                if (!url.isAbsolute() || !("http".equals(url.getScheme()) || "https".equals(url.getScheme()))) {
                    throw new IllegalArgumentException("a stage webhook is an absolute http(s) URL, got '" + url + "'");
                }
            }
        }

        @Override
        public ActionType type() {
            return ActionType.STAGE_CHANGED;
        }
    }

    /**
     * An action of a type added to loadflow: a record of its own, with an {@link ActionKind}
     * registered for its {@link #type()}. The dispatcher sends it through its channel's sender.
     */
    non-sealed interface Extension extends Action {
    }
}
