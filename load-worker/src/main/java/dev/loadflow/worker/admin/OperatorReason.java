package dev.loadflow.worker.admin;

import dev.loadflow.model.json.InvalidJsonException;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.service.problem.Problem;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import java.util.Set;

/** An operator's reason for a change, from a body {@code {"reason": "..."}}; kept in the audit trail. */
final class OperatorReason {

    /** The longest reason an operator may give. */
    static final int MAX = 500;

    private OperatorReason() {
    }

    /**
     * The reason in {@code body}, stripped.
     *
     * @throws WebApplicationException a 400 problem naming {@code reason} when the body is not
     *         that object, or the reason is blank or longer than {@link #MAX}
     */
    static String from(String body, String meaning) {
        String reason;
        try {
            reason = JsonReader.parse(body).allowOnly(Set.of("reason")).text("reason").strip();
        } catch (InvalidJsonException e) {
            throw new WebApplicationException(Problem.of(Response.Status.BAD_REQUEST, "Bad Request",
                    e.getMessage() + " (expected {\"reason\": \"...\"})", e.field()).response());
        }
        if (reason.isEmpty() || reason.length() > MAX) {
            throw new WebApplicationException(Problem.of(Response.Status.BAD_REQUEST, "Bad Request",
                    "reason is required: " + meaning + ", 1 to " + MAX + " characters", "reason").response());
        }
        return reason;
    }
}
