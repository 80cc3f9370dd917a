package dev.loadflow.model.action;

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
    /** A fan-out event delivered to configured subscribers (ADR 0006). */
    FANOUT("fanout");

    private final String wire;

    Channel(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
