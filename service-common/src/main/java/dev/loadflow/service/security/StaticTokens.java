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
 * in {@code .event-types} and the clients it may assign loads for in {@code .clients}: none unless
 * named) or in the short form {@code loadflow.ingest.tokens} (env {@code LOADFLOW_INGEST_TOKENS}:
 * comma-separated {@code source:token} pairs, each source owning every ingestible type and client). Tokens are compared in constant time. None configured: no token
 * matches, so ingest and the break-glass door are closed.
 */
@ApplicationScoped
public class StaticTokens {

    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(StaticTokens.class);

    /** The identity attribute holding the {@link EventType}s a source may post. */
    public static final String EVENT_TYPES = "loadflow.event-types";

    /** The identity attribute holding the {@link Clients} a source may assign loads for. */
    public static final String CLIENTS = "loadflow.clients";

    /**
     * A caller a configured token names; {@code eventTypes} are what it may post and {@code clients}
     * whom it may assign loads for (none for a person's credential).
     */
    public record Caller(String name, Set<String> roles, Set<EventType> eventTypes, Clients clients) {
    }

    /** The clients a source may assign loads for: those named, or every one (the short form's sources). */
    public record Clients(boolean every, Set<String> named) {

        public static final Clients NONE = new Clients(false, Set.of());
        public static final Clients EVERY = new Clients(true, Set.of());

        public Clients {
            named = Set.copyOf(named);
        }

        public boolean includes(String clientId) {
            return every || named.contains(clientId);
        }
    }

    private record Entry(byte[] token, Caller caller) {
    }

    private static final Set<EventType> INGESTIBLE =
            Arrays.stream(EventType.values()).filter(EventType::ingestible).collect(Collectors.toCollection(LinkedHashSet::new));

    private final List<Entry> entries = new ArrayList<>();

    StaticTokens(IngestSources ingest, @ConfigProperty(name = "loadflow.admin.token") Optional<String> breakGlass) {
        breakGlass.filter(t -> !t.isBlank()).ifPresent(t -> entries.add(new Entry(bytes(t),
                new Caller(Roles.BREAK_GLASS, Set.of(Roles.VIEWER, Roles.OPERATOR), Set.of(), Clients.NONE))));
        for (String pair : ingest.tokens().orElse(List.of())) {
            int colon = pair.indexOf(':');
            if (colon < 1 || colon == pair.length() - 1) {
                throw new IllegalArgumentException("loadflow.ingest.tokens holds source:token pairs; one entry is not");
            }
            add(pair.substring(0, colon).trim(), pair.substring(colon + 1).trim(), INGESTIBLE, Clients.EVERY);
        }
        for (Map.Entry<String, IngestSources.Source> source : ingest.sources().entrySet()) {
            Set<EventType> types = source.getValue().eventTypes().map(t -> eventTypes(source.getKey(), t)).orElse(Set.of());
            if (types.isEmpty()) {
                LOG.warnf("ingest source %s owns no event type (loadflow.ingest.sources.%s.event-types): every event it "
                        + "posts is refused", source.getKey(), source.getKey());
            }
            Clients clients = new Clients(false, source.getValue().clients().map(StaticTokens::trimmed).orElse(Set.of()));
            if (types.contains(EventType.LOAD_ASSIGNED) && clients.named().isEmpty()) {
                LOG.warnf("ingest source %s may post LoadAssigned but assign no client (loadflow.ingest.sources.%s.clients): "
                        + "every assignment it posts is refused", source.getKey(), source.getKey());
            }
            // a token being rotated: the new and the old, comma-separated, until the source uses the new one
            for (String token : source.getValue().token().split(",")) {
                add(source.getKey(), token.trim(), types, clients);
            }
        }
    }

    private static Set<String> trimmed(Set<String> names) {
        return names.stream().map(String::trim).filter(n -> !n.isEmpty()).collect(Collectors.toUnmodifiableSet());
    }

    /** Whether the caller may assign a load to {@code clientId}: a source that owns that client. */
    public static boolean mayAssign(SecurityIdentity caller, String clientId) {
        return caller.getAttribute(CLIENTS) instanceof Clients owned && owned.includes(clientId);
    }

    /** Whether the caller may post events of {@code type}: a source that owns it. */
    @SuppressWarnings("unchecked")
    public static boolean mayPost(SecurityIdentity caller, EventType type) {
        Object types = caller.getAttribute(EVENT_TYPES);
        return types instanceof Set<?> owned && ((Set<EventType>) owned).contains(type);
    }

    private void add(String source, String token, Set<EventType> types, Clients clients) {
        if (!source.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new IllegalArgumentException("an ingest source's name is 1 to 64 of [A-Za-z0-9_.-], got '" + source + "'");
        }
        if (token.isBlank()) {
            throw new IllegalArgumentException("ingest source " + source + " has a blank token");
        }
        entries.add(new Entry(bytes(token), new Caller(source, Set.of(Roles.SOURCE), types, clients)));
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
