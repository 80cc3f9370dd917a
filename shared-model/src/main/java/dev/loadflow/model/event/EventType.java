package dev.loadflow.model.event;

import java.util.Arrays;
import java.util.Optional;

/** The inbound event types, by the name they carry on the wire and in {@code event_log.type}. */
public enum EventType {
    LOAD_ASSIGNED("LoadAssigned", true),
    LOCATION_PING("LocationPing", true),
    INBOUND_SMS("InboundSms", true),
    /** Published only by the timer pump. */
    TIMER_FIRED("TimerFired", false),
    /** Published only by the outbox dispatcher. */
    ACTION_OUTCOME("ActionOutcome", false);

    private final String wire;
    private final boolean ingestible;

    EventType(String wire, boolean ingestible) {
        this.wire = wire;
        this.ingestible = ingestible;
    }

    public String wire() {
        return wire;
    }

    /** Whether the ingest endpoint accepts this type; the others come from the pump and the dispatcher. */
    public boolean ingestible() {
        return ingestible;
    }

    public static Optional<EventType> fromWire(String wire) {
        return Arrays.stream(values()).filter(t -> t.wire.equals(wire)).findFirst();
    }
}
