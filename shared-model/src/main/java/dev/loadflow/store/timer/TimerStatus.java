package dev.loadflow.store.timer;

import java.util.Arrays;

/** A timer is scheduled until it fires or is cancelled; both are final. */
public enum TimerStatus {
    SCHEDULED("scheduled"),
    FIRED("fired"),
    CANCELLED("cancelled");

    private final String wire;

    TimerStatus(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static TimerStatus fromWire(String wire) {
        return Arrays.stream(values()).filter(s -> s.wire.equals(wire)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown timer status '" + wire + "'"));
    }
}
