package dev.loadflow.service.security;

import dev.loadflow.model.json.TextRules;
import dev.loadflow.service.problem.Problem;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What an admin request may say in its path and query: no control character (other than tab, line
 * feed and carriage return) and no lone surrogate, as everywhere text comes from outside
 * ({@link TextRules}). PostgreSQL refuses U+0000 in {@code text} and {@code jsonb}, so such a
 * filter or id would otherwise fail the request with a {@code 500}, and the others forge log
 * lines. Refused with a {@code 400} problem naming the parameter, before any resource runs; the
 * bodies of admin changes are checked where every change is audited ({@link Audits#of}).
 */
public class AdminInputs {

    @ServerRequestFilter
    public Optional<Response> refuseControlCharacters(UriInfo uri) {
        if (!uri.getPath().startsWith("/admin/")) {
            return Optional.empty();
        }
        List<String> segments = uri.getPathSegments().stream().map(segment -> segment.getPath()).toList();
        for (int i = 0; i < segments.size(); i++) {
            if (TextRules.firstRefused(segments.get(i)) >= 0) {
                return Optional.of(refused("path segment " + (i + 1)));
            }
        }
        MultivaluedMap<String, String> query = uri.getQueryParameters();
        for (Map.Entry<String, List<String>> param : query.entrySet()) {
            if (TextRules.firstRefused(param.getKey()) >= 0
                    || param.getValue().stream().anyMatch(value -> TextRules.firstRefused(value) >= 0)) {
                return Optional.of(refused(TextRules.printable(param.getKey())));
            }
        }
        return Optional.empty();
    }

    private static Response refused(String field) {
        return Problem.of(Response.Status.BAD_REQUEST, "Invalid admin input", field
                + " holds a control character (other than tab, line feed and carriage return) or a lone surrogate", field)
                .response();
    }
}
