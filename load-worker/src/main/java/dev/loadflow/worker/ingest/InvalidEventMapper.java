package dev.loadflow.worker.ingest;

import dev.loadflow.model.json.InvalidJsonException;
import dev.loadflow.service.problem.Problem;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Maps a strict decoder's refusal to a {@code 400} problem naming the offending field. */
public final class InvalidEventMapper {

    @ServerExceptionMapper
    public Response invalidJson(InvalidJsonException e) {
        return Problem.of(Response.Status.BAD_REQUEST, "Invalid event", e.getMessage(), e.field()).response();
    }
}
