package dev.loadflow.store.outbox;

import java.util.Arrays;

/**
 * The life of an outbox row: pending until dispatched, or dead (parked) until replayed, or
 * ambiguous (a send whose answer was lost, to a provider that keeps no idempotency key) until
 * an operator marks it delivered or has it sent again.
 */
public enum OutboxStatus {
    PENDING("pending"),
    DISPATCHED("dispatched"),
    DEAD("dead"),
    AMBIGUOUS("ambiguous");

    private final String wire;

    OutboxStatus(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static OutboxStatus fromWire(String wire) {
        return Arrays.stream(values()).filter(s -> s.wire.equals(wire)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown outbox status '" + wire + "'"));
    }
}
