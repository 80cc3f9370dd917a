package dev.loadflow.service.security;

import dev.loadflow.service.problem.Problem;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Authentication and authorization failures as problem+json: 401 with a {@code WWW-Authenticate}
 * challenge when the caller is unknown (no credential, an unknown token, a JWT that does not
 * verify), 403 when a known caller lacks the role. The body never says why a token was refused.
 */
public class SecurityProblems {

    private static final String CHALLENGE = "Bearer realm=\"loadflow\"";

    @ServerExceptionMapper
    public Response unauthenticated(AuthenticationFailedException e) {
        return unauthorized();
    }

    @ServerExceptionMapper
    public Response unauthorized(UnauthorizedException e) {
        return unauthorized();
    }

    @ServerExceptionMapper
    public Response forbidden(ForbiddenException e) {
        return Problem.of(Response.Status.FORBIDDEN, "the caller's roles do not allow this").response();
    }

    private static Response unauthorized() {
        return Problem.of(Response.Status.UNAUTHORIZED,
                        "needs 'Authorization: Bearer <token>': a source's ingest token, a loadflow JWT or the break-glass token")
                .builder().header(HttpHeaders.WWW_AUTHENTICATE, CHALLENGE).build();
    }
}
