package dev.loadflow.model.action;

import java.util.Arrays;

/** The action types, by their name in {@code outbox.action_type} and in action keys. */
public enum ActionType {
    SEND_SMS("send_sms", Channel.SMS),
    CREATE_HERO_TASK("create_hero_task", Channel.HERO),
    POST_HERO_SLACK("post_hero_slack", Channel.SLACK),
    SET_TIMER("set_timer", Channel.INTERNAL),
    CANCEL_TIMER("cancel_timer", Channel.INTERNAL),
    UPDATE_STAGE("update_stage", Channel.INTERNAL),
    /** A stage change told to the client's stage webhooks, each once. */
    STAGE_CHANGED("stage_changed", Channel.FANOUT);

    private final String wire;
    private final Channel channel;

    ActionType(String wire, Channel channel) {
        this.wire = wire;
        this.channel = channel;
    }

    public String wire() {
        return wire;
    }

    public Channel channel() {
        return channel;
    }

    /**
     * Whether a failure of this action is an infrastructure incident (Hero tooling or loadflow's
     * own database) that raises an OpsAlert, rather than a situation for a Hero to handle.
     * Raising a Hero task for it could loop while the Hero tooling is down (ADR 0003).
     */
    public boolean alertsOpsOnFailure() {
        return channel != Channel.SMS;
    }

    public static ActionType fromWire(String wire) {
        return Arrays.stream(values()).filter(t -> t.wire.equals(wire)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown action type '" + wire + "'"));
    }
}
