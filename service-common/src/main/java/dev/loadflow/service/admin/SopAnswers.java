package dev.loadflow.service.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.time.Instant;
import java.util.List;

/**
 * The bodies of the worker's SOP admin API ({@code /admin/sops}): what an operator sends and what
 * the worker answers. The worker reads and writes them and the console sends and reads them, one
 * record each, so the two cannot drift.
 */
public final class SopAnswers {

    private SopAnswers() {
    }

    /** A new version: the rules, whole, and why. */
    @RegisterForReflection
    public record NewVersion(JsonNode rules, String reason) {
    }

    /** A version added, and its audit row. */
    @RegisterForReflection
    public record Added(String clientId, int version, long auditId) {
    }

    /** A preview's question: these rules, on that load. */
    @RegisterForReflection
    public record PreviewRequest(JsonNode rules, String loadId) {
    }

    /** What proposed rules would do on one load: each attempt's text, and each event of its history decided again. */
    @RegisterForReflection
    public record Preview(String clientId, String loadId, List<Text> texts, List<Line> history) {
    }

    /** Attempt {@code attempt}'s text for the load, and what it costs to send. */
    @RegisterForReflection
    public record Text(int attempt, String text, String encoding, int segments, boolean urgent) {
    }

    /** One event: what was decided on it, and what the proposed rules would decide. */
    @RegisterForReflection
    public record Line(String eventId, String type, Instant at, Outcome decided, Outcome proposed, boolean differs) {
    }

    /** A decision's reason and actions (as the log stores them); {@code sop} names the version that took it. */
    @RegisterForReflection
    public record Outcome(String reason, List<JsonNode> actions, String sop) {
    }
}
