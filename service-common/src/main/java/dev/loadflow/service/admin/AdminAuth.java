package dev.loadflow.service.admin;

import dev.loadflow.service.problem.Problem;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Everything under {@code /admin/} needs {@code Authorization: Bearer <loadflow.admin.token>}
 * (env {@code LOADFLOW_ADMIN_TOKEN}); anything else gets 401. Without a configured token the
 * admin API is closed to everyone.
 */
public class AdminAuth {

    private final Optional<String> token;

    AdminAuth(@ConfigProperty(name = "loadflow.admin.token") Optional<String> token) {
        this.token = token.filter(t -> !t.isBlank());
    }

    @ServerRequestFilter(preMatching = true)
    public Optional<Response> authenticate(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        if (!path.startsWith("/admin/") && !path.equals("/admin")) {
            return Optional.empty();
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (token.isPresent() && header != null && header.startsWith("Bearer ")
                && MessageDigest.isEqual(token.get().getBytes(StandardCharsets.UTF_8),
                header.substring("Bearer ".length()).trim().getBytes(StandardCharsets.UTF_8))) {
            return Optional.empty();
        }
        return Optional.of(Problem.of(Response.Status.UNAUTHORIZED, token.isPresent()
                        ? "admin endpoints need 'Authorization: Bearer <token>' with the configured loadflow.admin.token"
                        : "no loadflow.admin.token is configured: the admin API is closed").builder()
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"loadflow-admin\"").build());
    }
}
