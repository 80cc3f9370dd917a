package dev.loadflow.service.problem;

import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The 404s Quarkus REST raises itself, as problem+json. A query or path parameter that cannot be
 * read as its type ({@code page=abc}, or {@code page=99999999999}, past an {@code int}) is the
 * caller's mistake: 400, where JAX-RS answers 404 as if the resource did not exist. A path that
 * names no endpoint is 404. (The endpoints' own 404s are problems already and do not come here.)
 */
public class NotFoundProblems {

    private static final int SHOWN = 80;

    @ServerExceptionMapper
    public Response notFound(NotFoundException e, UriInfo uri) {
        if (e.getCause() != null) {
            return Problem.of(Response.Status.BAD_REQUEST,
                    "a query or path parameter is not of its type: " + shown(e.getCause().getMessage())).response();
        }
        return Problem.of(Response.Status.NOT_FOUND, "no endpoint at " + shown(uri.getPath())).response();
    }

    private static String shown(String text) {
        if (text == null) {
            return "";
        }
        return text.length() <= SHOWN ? text : text.substring(0, SHOWN) + "…";
    }
}
