package dev.loadflow.model.action;

import java.util.Arrays;

/** Where the dispatcher sends an action. */
public enum Channel {
    /** The SMS service: messages to drivers, external people. */
    SMS("sms"),
    /** The Hero task service: work for human operators. */
    HERO("hero"),
    /** The Hero Slack channel. */
    SLACK("slack"),
    /** Applied by the dispatcher in loadflow's own database (timers, stage). */
    INTERNAL("internal"),
    /** An event delivered once to each of several subscribers (ADR 0006): a client's stage webhooks. */
    FANOUT("fanout");

    private final String wire;

    Channel(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    /** The channel named {@code wire} in {@code outbox.channel}. */
    public static Channel fromWire(String wire) {
        return Arrays.stream(values()).filter(c -> c.wire.equals(wire)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown channel '" + wire + "'"));
    }
}
