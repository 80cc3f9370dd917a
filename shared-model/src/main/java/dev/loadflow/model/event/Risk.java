package dev.loadflow.model.event;

import java.util.Arrays;
import java.util.Optional;

/** The risk telematics attaches to a location ping. */
public enum Risk {
    HIGH("high"),
    MEDIUM("medium"),
    LOW("low");

    private final String wire;

    Risk(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Optional<Risk> fromWire(String wire) {
        return Arrays.stream(values()).filter(r -> r.wire.equals(wire)).findFirst();
    }
}
