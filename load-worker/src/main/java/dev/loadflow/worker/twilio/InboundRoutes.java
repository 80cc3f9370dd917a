package dev.loadflow.worker.twilio;

import dev.loadflow.model.id.InboundIds;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.service.config.ClientIds;
import dev.loadflow.store.driver.PgDriverLoads;
import dev.loadflow.store.driver.PgDriverLoads.Assignment;
import dev.loadflow.store.eventlog.EventStore;
import jakarta.inject.Singleton;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which load an incoming SMS belongs to. Its sender's current loads ({@link PgDriverLoads}), of
 * the clients whose own sender it was written to ({@code loadflow.sources.twilio.senders}: the
 * {@code To} number or the {@code MessagingServiceSid}); of several, the one with an open ask; of
 * several none of which asks, the most recently assigned when they are all one client's. What is
 * left ambiguous (several asking, several clients, or only another client's loads) is never
 * guessed: it goes to a load of the sender's day for the Hero desk ({@link InboundIds#UNROUTED}).
 * A number no load is assigned to goes to a load of its own day ({@link InboundIds#STRANGER}).
 * Those loads are named by a digest of the number keyed with the account's auth token: no phone
 * number is in a load id, and so in no log line, span or URL.
 */
@Singleton
public class InboundRoutes {

    /** Where an SMS goes, and why. */
    public record Route(String loadId, Kind kind, String why) {
    }

    /** Whose load it is. */
    public enum Kind { DRIVER, UNROUTED, STRANGER }

    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC);

    private final PgDriverLoads drivers;
    private final EventStore events;
    private final Clock clock;
    private final Map<String, Set<String>> clientsBySender = new HashMap<>();
    private final byte[] key;

    public InboundRoutes(TwilioSourceConfig config, PgDriverLoads drivers, EventStore events, Clock clock) {
        this.drivers = drivers;
        this.events = events;
        this.clock = clock;
        config.senders().forEach((client, senders) -> senders.forEach(sender ->
                clientsBySender.computeIfAbsent(sender.trim(), s -> new HashSet<>()).add(ClientIds.fold(client))));
        this.key = config.authToken().orElse("").getBytes(StandardCharsets.UTF_8);
    }

    /** The route of an SMS from {@code from} written to {@code to} (through {@code messagingService}, or null). */
    public Route of(String from, String to, String messagingService) {
        List<Assignment> loads = drivers.currentLoadsOf(from);
        if (loads.isEmpty()) {
            return new Route(dayLoad(InboundIds.STRANGER, from), Kind.STRANGER, "no load is assigned to the number");
        }
        Set<String> clients = new HashSet<>();
        for (String sender : new String[] {to, messagingService}) {
            if (sender != null) {
                clients.addAll(clientsBySender.getOrDefault(sender, Set.of()));
            }
        }
        List<Assignment> candidates = clients.isEmpty() ? loads
                : loads.stream().filter(a -> a.clientId() != null && clients.contains(ClientIds.fold(a.clientId()))).toList();
        if (candidates.size() == 1) {
            return driver(candidates.getFirst(), clients.isEmpty() ? "the driver's one load" : "the driver's load of the client written to");
        }
        if (candidates.isEmpty()) {
            return unrouted(from, "written to another client's sender than the driver's loads'");
        }
        List<Assignment> asking = candidates.stream()
                .filter(a -> !LoadState.project(events.read(a.loadId())).openAsks().isEmpty()).toList();
        if (asking.size() == 1) {
            return driver(asking.getFirst(), "the one of the driver's loads that asked");
        }
        if (asking.isEmpty() && candidates.stream().map(a -> ClientIds.fold(String.valueOf(a.clientId()))).distinct().count() == 1) {
            return driver(candidates.getFirst(), "the driver's latest load (none asked)");
        }
        return unrouted(from, asking.isEmpty() ? "several clients' loads, none asking" : asking.size() + " loads asking");
    }

    private static Route driver(Assignment load, String why) {
        return new Route(load.loadId(), Kind.DRIVER, why);
    }

    private Route unrouted(String from, String why) {
        return new Route(dayLoad(InboundIds.UNROUTED, from), Kind.UNROUTED, why);
    }

    /** The load of {@code from}'s SMS today under {@code prefix}: {@code prefix} + 20 hex digits of a keyed digest + the UTC day. */
    String dayLoad(String prefix, String from) {
        return prefix + digest(from) + "-" + DAY.format(clock.instant());
    }

    /** The opaque id of {@code from}: the same on every worker, told from the number by nobody without the auth token. */
    String digest(String from) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.length == 0 ? new byte[1] : key, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(from.getBytes(StandardCharsets.UTF_8)), 0, 10);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
