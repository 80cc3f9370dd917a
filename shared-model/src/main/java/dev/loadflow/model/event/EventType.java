package dev.loadflow.model.event;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * An inbound event type, by the name it carries on the wire and in {@code event_log.type}. The
 * five below are built in; an {@link EventKind} adds its own ({@link #register}). There is one
 * instance per name, so types compare with {@code ==}.
 */
public final class EventType {

    private static final Pattern WIRE = Pattern.compile("[A-Z][A-Za-z0-9]{0,47}");
    private static final Map<String, EventType> BY_WIRE = new ConcurrentHashMap<>();
    /** {@link #values()} as last sorted; made again when a type was registered since. */
    private static volatile EventType[] values;

    public static final EventType LOAD_ASSIGNED = register("LoadAssigned", true);
    public static final EventType LOCATION_PING = register("LocationPing", true);
    public static final EventType INBOUND_SMS = register("InboundSms", true);
    /** Published only by the timer pump. */
    public static final EventType TIMER_FIRED = register("TimerFired", false);
    /** Published only by the outbox dispatcher. */
    public static final EventType ACTION_OUTCOME = register("ActionOutcome", false);

    private final String wire;
    private final boolean ingestible;

    private EventType(String wire, boolean ingestible) {
        this.wire = wire;
        this.ingestible = ingestible;
    }

    /**
     * The event type named {@code wire} (a letter in upper case, then letters and digits: {@code
     * DoorOpened}). Registering a name again the same way gives the same type; otherwise it is refused.
     *
     * @param ingestible whether sources may post it to ingest
     */
    public static EventType register(String wire, boolean ingestible) {
        if (wire == null || !WIRE.matcher(wire).matches()) {
            throw new IllegalArgumentException("an event type's name is a capital letter, then letters and digits, got '"
                    + wire + "'");
        }
        EventType type = BY_WIRE.computeIfAbsent(wire, name -> new EventType(name, ingestible));
        if (type.ingestible != ingestible) {
            throw new IllegalArgumentException("event type '" + wire + "' is registered already");
        }
        return type;
    }

    public String wire() {
        return wire;
    }

    /** Whether the ingest endpoint accepts this type; the others come from the pump and the dispatcher. */
    public boolean ingestible() {
        return ingestible;
    }

    /** The name in upper snake case ({@code LOAD_ASSIGNED}), as logs print it. */
    @JsonValue
    public String name() {
        return wire.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    }

    /** Every event type: the built-in ones and those of the registered {@link EventKind}s, in name order. */
    public static EventType[] values() {
        EventKinds.all();
        EventType[] sorted = values;
        if (sorted == null || sorted.length != BY_WIRE.size()) {
            sorted = BY_WIRE.values().stream().sorted((a, b) -> a.wire.compareTo(b.wire)).toArray(EventType[]::new);
            values = sorted;
        }
        return sorted.clone();
    }

    public static Optional<EventType> fromWire(String wire) {
        EventKinds.all();
        return Optional.ofNullable(BY_WIRE.get(Objects.requireNonNullElse(wire, "")));
    }

    @Override
    public String toString() {
        return name();
    }
}
