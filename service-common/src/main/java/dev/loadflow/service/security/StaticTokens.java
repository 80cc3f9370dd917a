package dev.loadflow.service.security;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The bearer tokens configured rather than signed: each source's ingest token
 * ({@code loadflow.ingest.tokens}, env {@code LOADFLOW_INGEST_TOKENS}: comma-separated
 * {@code source:token} pairs) and the break-glass token ({@code loadflow.admin.token}, env
 * {@code LOADFLOW_ADMIN_TOKEN}). Tokens are compared in constant time. None configured: no
 * token matches, so ingest and the break-glass door are closed.
 */
@ApplicationScoped
public class StaticTokens {

    /** A caller a configured token names. */
    public record Caller(String name, Set<String> roles) {
    }

    private record Entry(byte[] token, Caller caller) {
    }

    private final List<Entry> entries = new ArrayList<>();

    StaticTokens(@ConfigProperty(name = "loadflow.ingest.tokens") Optional<List<String>> ingest,
                 @ConfigProperty(name = "loadflow.admin.token") Optional<String> breakGlass) {
        breakGlass.filter(t -> !t.isBlank()).ifPresent(t ->
                entries.add(new Entry(bytes(t), new Caller(Roles.BREAK_GLASS, Set.of(Roles.VIEWER, Roles.OPERATOR)))));
        for (String pair : ingest.orElse(List.of())) {
            int colon = pair.indexOf(':');
            if (colon < 1 || colon == pair.length() - 1) {
                throw new IllegalArgumentException("loadflow.ingest.tokens holds source:token pairs; one entry is not");
            }
            String source = pair.substring(0, colon).trim();
            if (!source.matches("[A-Za-z0-9_.-]{1,64}")) {
                throw new IllegalArgumentException("loadflow.ingest.tokens: a source name is 1 to 64 of [A-Za-z0-9_.-], got '"
                        + source + "'");
            }
            entries.add(new Entry(bytes(pair.substring(colon + 1).trim()), new Caller(source, Set.of(Roles.SOURCE))));
        }
    }

    /** The caller {@code token} names, if it is one of the configured tokens. */
    public Optional<Caller> match(String token) {
        byte[] given = bytes(token);
        Caller found = null;
        for (Entry entry : entries) {
            // every entry is compared, so the time taken does not tell which one matched
            if (MessageDigest.isEqual(entry.token(), given) && found == null) {
                found = entry.caller();
            }
        }
        return Optional.ofNullable(found);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
