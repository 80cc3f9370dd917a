package dev.loadflow.service.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.loadflow.model.json.JsonReader;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

/**
 * An RFC 7807 problem body ({@code application/problem+json}), the one shape every loadflow
 * service answers a bad request with. {@code field}, when set, names the offending input.
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, String field) {

    public static final String MEDIA_TYPE = "application/problem+json";

    /** A problem whose title is the status's reason phrase. */
    public static Problem of(Response.Status status, String detail) {
        return of(status, status.getReasonPhrase(), detail, null);
    }

    public static Problem of(Response.Status status, String title, String detail, String field) {
        return new Problem("about:blank", title, status.getStatusCode(), detail, field);
    }

    /** The response carrying this problem; add headers through the builder. */
    public Response.ResponseBuilder builder() {
        try {
            return Response.status(status).type(MEDIA_TYPE).entity(JsonReader.MAPPER.writeValueAsString(this));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a problem body could not be written", e);
        }
    }

    public Response response() {
        return builder().build();
    }

    /** This problem as the exception an endpoint throws to refuse: Quarkus REST answers with {@link #response()}. */
    public WebApplicationException exception() {
        return new WebApplicationException(detail, response());
    }
}
