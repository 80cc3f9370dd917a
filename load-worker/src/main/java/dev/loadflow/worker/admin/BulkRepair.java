package dev.loadflow.worker.admin;

import dev.loadflow.model.json.InvalidJsonException;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.service.problem.Problem;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import java.util.Set;

/**
 * What a bulk repair of held loads does, from a body {@code {"action": "retry"}} or
 * {@code {"action": "skip", "reason": "..."}}: a skip needs a reason (written in each load's log).
 */
record BulkRepair(String action, String reason) {

    static BulkRepair from(String body) {
        String action;
        String reason;
        try {
            JsonReader json = JsonReader.parse(body).allowOnly(Set.of("action", "reason"));
            action = json.text("action");
            reason = json.optionalText("reason");
        } catch (InvalidJsonException e) {
            throw invalid(e.field(), e.getMessage() + " (expected {\"action\": \"retry\"} or {\"action\": \"skip\", \"reason\": \"...\"})");
        }
        if (!"retry".equals(action) && !"skip".equals(action)) {
            throw invalid("action", "action must be retry or skip, got '" + action + "'");
        }
        reason = reason == null ? null : reason.strip();
        if ("skip".equals(action) && (reason == null || reason.isEmpty() || reason.length() > OperatorReason.MAX)) {
            throw invalid("reason", "reason is required to skip: why the messages are skipped (written in each load's log), 1 to "
                    + OperatorReason.MAX + " characters");
        }
        if ("retry".equals(action) && reason != null && reason.length() > OperatorReason.MAX) {
            throw invalid("reason", "reason is at most " + OperatorReason.MAX + " characters");
        }
        return new BulkRepair(action, reason == null || reason.isEmpty() ? null : reason);
    }

    private static WebApplicationException invalid(String field, String detail) {
        return new WebApplicationException(Problem.of(Response.Status.BAD_REQUEST, "Bad Request", detail, field).response());
    }
}
