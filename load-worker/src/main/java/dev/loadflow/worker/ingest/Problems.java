package dev.loadflow.worker.ingest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.model.json.InvalidJsonException;
import dev.loadflow.model.json.JsonReader;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** RFC 7807 problem bodies ({@code application/problem+json}). */
public final class Problems {

    public static final String MEDIA_TYPE = "application/problem+json";

    /** A problem response; {@code field}, when set, names the offending JSON field. */
    public static Response problem(Response.Status status, String title, String detail, String field) {
        ObjectNode body = JsonReader.MAPPER.createObjectNode()
                .put("type", "about:blank")
                .put("title", title)
                .put("status", status.getStatusCode())
                .put("detail", detail);
        if (field != null) {
            body.put("field", field);
        }
        return Response.status(status).type(MEDIA_TYPE).entity(body.toString()).build();
    }

    @ServerExceptionMapper
    public Response invalidJson(InvalidJsonException e) {
        return problem(Response.Status.BAD_REQUEST, "Invalid event", e.getMessage(), e.field());
    }
}
