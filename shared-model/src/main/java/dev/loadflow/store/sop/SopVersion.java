package dev.loadflow.store.sop;

import dev.loadflow.model.policy.SopRules;

import java.time.Instant;
import java.util.Objects;

/**
 * One numbered version of a client's SOP: its rules, who made it, when and why. Versions are never
 * changed: a change is the next version.
 */
public record SopVersion(String clientId, int version, SopRules rules, String madeBy, Instant madeAt, String reason) {

    public SopVersion {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(rules, "rules");
        if (version < 1) {
            throw new IllegalArgumentException("a version is 1 or more, got " + version);
        }
    }
}
