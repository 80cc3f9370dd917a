package dev.loadflow.model.policy;

import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.projection.LoadState;

import java.time.Instant;

/**
 * Decides what to do about one inbound event of a load, given the load's projected state.
 * Today the deterministic {@link SopPolicy}; later possibly an LLM agent. A policy is called
 * only for events the {@link DeterministicFilter} let through, may be called again for the
 * same event after a concurrency conflict (with fresher state), and must derive every action
 * key from the event and the state so a re-decision yields the same keys.
 */
public interface DecisionPolicy {

    /** @param now the decision's time, from the application clock: timers are anchored on it */
    Decision decide(InboundEvent event, LoadState state, Instant now);
}
