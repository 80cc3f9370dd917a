package dev.loadflow.service.admin;

import io.quarkus.runtime.annotations.RegisterForReflection;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The bodies of an operator's changes through the admin APIs: the services read them and the
 * console sends them, one record each, so the two cannot drift.
 */
public final class OperatorRequests {

    private OperatorRequests() {
    }

    /**
     * An operator's finding on an ambiguous row: {@code as} {@code delivered} (the provider has it:
     * the row is dispatched and its delivered outcome published) or {@code resend} (it has not: sent
     * again), and why.
     */
    @RegisterForReflection
    public record Resolve(String as, String reason) {
    }

    /** Why: an acknowledgement (what was done instead of a replay), or a skip (written in the load's log). */
    @RegisterForReflection
    public record Acknowledge(String reason) {
    }

    /** A bulk repair of held loads: {@code retry} or {@code skip}, a skip with its reason. */
    @RegisterForReflection
    @Schema(name = "HeldRepair")
    public record Repair(String action, String reason) {
    }
}
