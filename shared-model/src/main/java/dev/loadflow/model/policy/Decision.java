package dev.loadflow.model.policy;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Urgency;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Provenance;
import dev.loadflow.model.event.SopRef;
import dev.loadflow.model.id.ActionKey;

import java.util.List;
import java.util.Objects;

/**
 * What a policy decided about one event: the actions to take (they become outbox rows in the
 * same transaction as the log entries), whether a human must look, why, which asks the
 * decision ends, who decided ({@link Provenance}), and the SOP version it followed (null when no
 * SOP rule took it).
 */
public record Decision(List<Action> actions, boolean needsHeroTask, String reason, List<String> closedAsks,
                       Provenance provenance, SopRef sop) {

    public Decision {
        actions = List.copyOf(actions);
        closedAsks = List.copyOf(closedAsks);
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(provenance, "provenance");
    }

    /** A decision of the deterministic SOP. */
    public Decision(List<Action> actions, boolean needsHeroTask, String reason, List<String> closedAsks) {
        this(actions, needsHeroTask, reason, closedAsks, Provenance.BY_SOP, null);
    }

    /** The same decision, said to be taken by {@code provenance}. */
    public Decision by(Provenance provenance) {
        return new Decision(actions, needsHeroTask, reason, closedAsks, provenance, sop);
    }

    /** The same decision, said to follow the SOP version {@code sop}. */
    public Decision under(SopRef sop) {
        return new Decision(actions, needsHeroTask, reason, closedAsks, provenance, sop);
    }

    /** Nothing to do. */
    public static Decision noop(String reason) {
        return new Decision(List.of(), false, reason, List.of());
    }

    /**
     * The fallback after the decision for {@code event} hit a duplicate action key (a decision
     * bug): one Hero task keyed by the event ({@code {loadId}/evt:{eventId}/1/create_hero_task}),
     * so the event is still logged and a human sees it.
     */
    public static Decision heroTaskAfterDuplicateKey(InboundEvent event, List<String> duplicateKeys) {
        ActionKey key = ActionKey.heroTaskAfterDuplicate(event.loadId(), event.eventId());
        Action task = new Action.CreateHeroTask(key.subject(), key.attempt(),
                "Automation could not act on load " + event.loadId(), Urgency.URGENT,
                "The decision on " + event.type().wire() + " " + event.eventId()
                        + " repeated action keys " + duplicateKeys + ". Please review the load.");
        return new Decision(List.of(task), true, "duplicate action key " + duplicateKeys + ": handed to a Hero",
                List.of());
    }
}
