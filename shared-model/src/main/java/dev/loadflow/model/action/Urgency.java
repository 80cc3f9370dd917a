package dev.loadflow.model.action;

import java.util.Arrays;

/** How soon a Hero task needs a human. */
public enum Urgency {
    NORMAL("normal"),
    URGENT("urgent");

    private final String wire;

    Urgency(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Urgency fromWire(String wire) {
        return Arrays.stream(values()).filter(u -> u.wire.equals(wire)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown urgency '" + wire + "'"));
    }
}
