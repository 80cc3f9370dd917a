package dev.loadflow.service.security;

import dev.loadflow.model.event.EventType;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The bearer tokens configured rather than signed: each source's ingest token and the
 * break-glass token ({@code loadflow.admin.token}, env {@code LOADFLOW_ADMIN_TOKEN}). A source is
 * configured by name ({@code loadflow.ingest.sources.<name>.token}, with the event types it owns
 * in {@code .event-types}: none unless named) or in the short form {@code loadflow.ingest.tokens} (env
 * {@code LOADFLOW_INGEST_TOKENS}: comma-separated {@code source:token} pairs, each source owning
 * every ingestible type). Tokens are compared in constant time. None configured: no token
 * matches, so ingest and the break-glass door are closed.
 */
@ApplicationScoped
public class StaticTokens {

    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(StaticTokens.class);

    /** The identity attribute holding the {@link EventType}s a source may post. */
    public static final String EVENT_TYPES = "loadflow.event-types";

    /** A caller a configured token names; {@code eventTypes} are what it may post (empty for a person's credential). */
    public record Caller(String name, Set<String> roles, Set<EventType> eventTypes) {
    }

    private record Entry(byte[] token, Caller caller) {
    }

    private static final Set<EventType> INGESTIBLE =
            Arrays.stream(EventType.values()).filter(EventType::ingestible).collect(Collectors.toCollection(LinkedHashSet::new));

    private final List<Entry> entries = new ArrayList<>();

    StaticTokens(IngestSources ingest, @ConfigProperty(name = "loadflow.admin.token") Optional<String> breakGlass) {
        breakGlass.filter(t -> !t.isBlank()).ifPresent(t -> entries.add(new Entry(bytes(t),
                new Caller(Roles.BREAK_GLASS, Set.of(Roles.VIEWER, Roles.OPERATOR), Set.of()))));
        for (String pair : ingest.tokens().orElse(List.of())) {
            int colon = pair.indexOf(':');
            if (colon < 1 || colon == pair.length() - 1) {
                throw new IllegalArgumentException("loadflow.ingest.tokens holds source:token pairs; one entry is not");
            }
            add(pair.substring(0, colon).trim(), pair.substring(colon + 1).trim(), INGESTIBLE);
        }
        for (Map.Entry<String, IngestSources.Source> source : ingest.sources().entrySet()) {
            Set<EventType> types = source.getValue().eventTypes().map(t -> eventTypes(source.getKey(), t)).orElse(Set.of());
            if (types.isEmpty()) {
                LOG.warnf("ingest source %s owns no event type (loadflow.ingest.sources.%s.event-types): every event it "
                        + "posts is refused", source.getKey(), source.getKey());
            }
            add(source.getKey(), source.getValue().token(), types);
        }
    }

    /** Whether the caller may post events of {@code type}: a source that owns it. */
    @SuppressWarnings("unchecked")
    public static boolean mayPost(SecurityIdentity caller, EventType type) {
        Object types = caller.getAttribute(EVENT_TYPES);
        return types instanceof Set<?> owned && ((Set<EventType>) owned).contains(type);
    }

    private void add(String source, String token, Set<EventType> types) {
        if (!source.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new IllegalArgumentException("an ingest source's name is 1 to 64 of [A-Za-z0-9_.-], got '" + source + "'");
        }
        if (token.isBlank()) {
            throw new IllegalArgumentException("ingest source " + source + " has a blank token");
        }
        entries.add(new Entry(bytes(token), new Caller(source, Set.of(Roles.SOURCE), types)));
    }

    private static Set<EventType> eventTypes(String source, Set<String> names) {
        Set<EventType> types = new LinkedHashSet<>();
        for (String name : names) {
            EventType type = EventType.fromWire(name.trim()).filter(EventType::ingestible).orElseThrow(() ->
                    new IllegalArgumentException("loadflow.ingest.sources." + source + ".event-types: '" + name
                            + "' is not an ingestible event type; they are " + INGESTIBLE.stream().map(EventType::wire).toList()));
            types.add(type);
        }
        return types;
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
