package dev.loadflow.model.policy;

import dev.loadflow.model.event.SopRef;

import java.util.Objects;
import java.util.function.Function;

/**
 * Where a policy finds a client's SOP: the newest version, which takes every new decision, and a
 * given version, which an open ask keeps to its end.
 */
public interface SopBook {

    /** One version of a client's SOP, and its rules. */
    record Sop(SopRef ref, SopRules rules) {
        public Sop {
            Objects.requireNonNull(ref, "ref");
            Objects.requireNonNull(rules, "rules");
        }
    }

    /** The client's newest SOP ({@code clientId} null: a load not assigned yet). */
    Sop current(String clientId);

    /**
     * Version {@code version} of the client's SOP; {@link SopRef#CONFIGURED} is the configured
     * rules as they are now.
     */
    Sop at(String clientId, int version);

    /** A book of configured rules only: every client at version {@link SopRef#CONFIGURED}. */
    static SopBook configured(Function<String, SopRules> rules) {
        return new SopBook() {
            @Override
            public Sop current(String clientId) {
                return new Sop(new SopRef(clientId, SopRef.CONFIGURED), rules.apply(clientId));
            }

            @Override
            public Sop at(String clientId, int version) {
                return current(clientId);
            }
        };
    }
}
