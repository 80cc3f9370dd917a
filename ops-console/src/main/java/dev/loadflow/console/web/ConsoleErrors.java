package dev.loadflow.console.web;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Refusals as pages. A browser without a credential is sent to sign in (and back); any other
 * client gets 401 with a {@code WWW-Authenticate} challenge. A caller without the role gets 403.
 */
public class ConsoleErrors {

    @ServerExceptionMapper(priority = Priorities.USER - 100)
    public Response unauthenticated(AuthenticationFailedException e, HttpHeaders headers, UriInfo uri, Request request) {
        return signIn(headers, uri, request);
    }

    @ServerExceptionMapper(priority = Priorities.USER - 100)
    public Response unauthorized(UnauthorizedException e, HttpHeaders headers, UriInfo uri, Request request) {
        return signIn(headers, uri, request);
    }

    @ServerExceptionMapper(priority = Priorities.USER - 100)
    public Response forbidden(ForbiddenException e) {
        return page(new ConsoleProblem(403, "Not allowed",
                "Your roles do not allow this: changes need loadflow-operator, reading needs loadflow-viewer."));
    }

    /**
     * Quarkus REST's own 404s: a value in the address that is not of its type ({@code page=abc})
     * is a bad request, where JAX-RS would say the page does not exist; a path that names no page is 404.
     */
    @ServerExceptionMapper(priority = Priorities.USER - 100)
    public Response notFound(NotFoundException e) {
        return page(e.getCause() != null
                ? ConsoleProblem.badRequest("Not a value this page takes",
                        "A value in the address is not of the kind the page takes: page numbers and counts are whole numbers.")
                : ConsoleProblem.notFound("No such page", "Nothing is served at this address: start from the overview."));
    }

    /** A page asked for with a method it does not take (a form's address opened as a link). */
    @ServerExceptionMapper(priority = Priorities.USER - 100)
    public Response notAllowed(NotAllowedException e) {
        return page(new ConsoleProblem(405, "Not here", "This address takes a form's button, not a link: go back and use the button."));
    }

    @ServerExceptionMapper
    public Response refused(ConsoleProblem problem) {
        return page(problem);
    }

    private static Response signIn(HttpHeaders headers, UriInfo uri, Request request) {
        boolean browser = headers.getAcceptableMediaTypes().stream().anyMatch(t -> t.isCompatible(MediaType.TEXT_HTML_TYPE)
                && !t.isWildcardType());
        if (browser) {
            // back to the page asked for; a form posted without a credential is not sent again
            String back = !"GET".equals(request.getMethod()) ? "/" : uri.getRequestUri().getRawPath()
                    + (uri.getRequestUri().getRawQuery() == null ? "" : "?" + uri.getRequestUri().getRawQuery());
            return Response.seeOther(UriBuilder.fromPath("/sign-in").queryParam("next", back).build()).build();
        }
        return Response.status(Response.Status.UNAUTHORIZED).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"loadflow\"")
                .type(MediaType.TEXT_HTML_TYPE)
                .entity(Pages.problem(401, "Sign in first", "Send 'Authorization: Bearer <token>' (a loadflow JWT or the "
                        + "break-glass token), or sign in at /sign-in.").render()).build();
    }

    private static Response page(ConsoleProblem problem) {
        return Response.status(problem.status()).type(MediaType.TEXT_HTML_TYPE)
                .entity(Pages.problem(problem.status(), problem.title(), problem.getMessage()).render()).build();
    }
}
