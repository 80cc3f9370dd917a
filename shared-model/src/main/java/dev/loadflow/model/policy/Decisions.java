package dev.loadflow.model.policy;

import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.projection.LoadState;

import java.time.Instant;
import java.util.List;

/**
 * How one event of a load is decided, as a pure function of the load's state: the
 * {@link DeterministicFilter} first (a filtered noop, no policy call), else the policy. Nothing
 * here reads a clock, a database or a queue; the run that calls it reads the state before and
 * appends what it returns.
 */
public final class Decisions {

    private Decisions() {
    }

    /**
     * The decision to log for {@code event} on {@code state}.
     *
     * @param now the decision's time, from the application clock
     * @throws RuntimeException whatever the policy throws (the event is then not decided)
     */
    public static DecisionRecorded decide(LoadState state, InboundEvent event, DecisionPolicy policy, Instant now) {
        return DeterministicFilter.filter(event, state)
                .map(reason -> DecisionRecorded.filtered(event, now, reason))
                .orElseGet(() -> recorded(event, policy.decide(event, state, now), now));
    }

    /**
     * The decision that replaces one whose actions repeated keys already in the outbox (a decision
     * bug): one urgent Hero task keyed by the event, so the event is still logged and a person sees it.
     */
    public static DecisionRecorded afterDuplicateKey(InboundEvent event, List<String> duplicateKeys, Instant now) {
        return recorded(event, Decision.heroTaskAfterDuplicateKey(event, duplicateKeys), now);
    }

    private static DecisionRecorded recorded(InboundEvent event, Decision decision, Instant now) {
        return DecisionRecorded.decided(event, now, decision.actions(), decision.needsHeroTask(), decision.reason(),
                decision.closedAsks(), decision.provenance(), decision.sop());
    }
}
