package dev.loadflow.model.event;

import java.util.Arrays;
import java.util.Optional;

/** The final result of one outbox row, as the dispatcher reports it. */
public enum OutcomeStatus {
    DELIVERED("delivered"),
    FAILED("failed");

    private final String wire;

    OutcomeStatus(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Optional<OutcomeStatus> fromWire(String wire) {
        return Arrays.stream(values()).filter(s -> s.wire.equals(wire)).findFirst();
    }
}
