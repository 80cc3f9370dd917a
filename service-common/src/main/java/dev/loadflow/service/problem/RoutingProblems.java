package dev.loadflow.service.problem;

import jakarta.ws.rs.NotAcceptableException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The refusals Quarkus REST makes itself, before an endpoint runs, as problem+json (it answers
 * them with an empty body or an HTML page). A query or path parameter that cannot be read as its
 * type ({@code page=abc}, or {@code page=99999999999}, past an {@code int}) is the caller's
 * mistake: 400, where JAX-RS answers 404 as if the resource did not exist. A path that names no
 * endpoint is 404; a method it does not take 405; a body of a type it does not take 415;
 * an answer asked for in a type none is given in 406. (The endpoints' own refusals are problems
 * already and do not come here.)
 */
public class RoutingProblems {

    private static final int SHOWN = 80;

    @ServerExceptionMapper
    public Response notFound(NotFoundException e, UriInfo uri) {
        if (e.getCause() != null) {
            return Problem.of(Response.Status.BAD_REQUEST,
                    "a query or path parameter is not of its type: " + shown(e.getCause().getMessage())).response();
        }
        return Problem.of(Response.Status.NOT_FOUND, "no endpoint at " + shown(uri.getPath())).response();
    }

    @ServerExceptionMapper
    public Response notAllowed(NotAllowedException e, UriInfo uri, Request request) {
        Response.ResponseBuilder answer = Problem.of(Response.Status.METHOD_NOT_ALLOWED,
                shown(uri.getPath()) + " does not take " + request.getMethod()).builder();
        String allow = e.getResponse().getHeaderString(HttpHeaders.ALLOW);
        return (allow == null ? answer : answer.header(HttpHeaders.ALLOW, allow)).build();
    }

    @ServerExceptionMapper
    public Response notSupported(NotSupportedException e, HttpHeaders headers) {
        return Problem.of(Response.Status.UNSUPPORTED_MEDIA_TYPE, "this endpoint takes no body of type "
                + shown(String.valueOf(headers.getMediaType())) + " (the APIs take application/json)").response();
    }

    @ServerExceptionMapper
    public Response notAcceptable(NotAcceptableException e) {
        return Problem.of(Response.Status.NOT_ACCEPTABLE, "answers are application/json (refusals application/problem+json)")
                .response();
    }

    private static String shown(String text) {
        if (text == null) {
            return "";
        }
        return text.length() <= SHOWN ? text : text.substring(0, SHOWN) + "…";
    }
}
