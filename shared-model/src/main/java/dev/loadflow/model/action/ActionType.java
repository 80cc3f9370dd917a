package dev.loadflow.model.action;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * An action type, by its name in {@code outbox.action_type} and in action keys, with the
 * channel that carries it. The seven below are built in; an {@link ActionKind} adds its own
 * ({@link #register}). There is one instance per name, so types compare with {@code ==}.
 */
public final class ActionType {

    private static final Pattern WIRE = Pattern.compile("[a-z][a-z0-9_]{0,47}");
    private static final Map<String, ActionType> BY_WIRE = new ConcurrentHashMap<>();
    /** {@link #values()} as last sorted; made again when a type was registered since. */
    private static volatile ActionType[] values;

    public static final ActionType SEND_SMS = register("send_sms", Channel.SMS, false);
    public static final ActionType CREATE_HERO_TASK = register("create_hero_task", Channel.HERO, true);
    public static final ActionType POST_HERO_SLACK = register("post_hero_slack", Channel.SLACK, true);
    public static final ActionType SET_TIMER = register("set_timer", Channel.INTERNAL, true);
    public static final ActionType CANCEL_TIMER = register("cancel_timer", Channel.INTERNAL, true);
    public static final ActionType UPDATE_STAGE = register("update_stage", Channel.INTERNAL, true);
    /** A stage change told to the client's stage webhooks, each once. */
    public static final ActionType STAGE_CHANGED = register("stage_changed", Channel.FANOUT, true);

    private final String wire;
    private final Channel channel;
    private final boolean alertsOpsOnFailure;

    private ActionType(String wire, Channel channel, boolean alertsOpsOnFailure) {
        this.wire = wire;
        this.channel = channel;
        this.alertsOpsOnFailure = alertsOpsOnFailure;
    }

    /**
     * The action type named {@code wire} (lower case letters, digits and {@code _}), carried by
     * {@code channel}. Registering a name again with the same channel and failure handling gives
     * the same type; with others, it is refused.
     *
     * @param alertsOpsOnFailure whether its dead rows page on-call ({@link #alertsOpsOnFailure()})
     */
    public static ActionType register(String wire, Channel channel, boolean alertsOpsOnFailure) {
        if (wire == null || !WIRE.matcher(wire).matches()) {
            throw new IllegalArgumentException("an action type's name is lower case letters, digits and _, got '" + wire + "'");
        }
        Objects.requireNonNull(channel, "channel");
        ActionType type = BY_WIRE.computeIfAbsent(wire, name -> new ActionType(name, channel, alertsOpsOnFailure));
        if (type.channel != channel || type.alertsOpsOnFailure != alertsOpsOnFailure) {
            throw new IllegalArgumentException("action type '" + wire + "' is registered already, on " + type.channel.wire());
        }
        return type;
    }

    public String wire() {
        return wire;
    }

    public Channel channel() {
        return channel;
    }

    /**
     * Whether a failure of this action is an infrastructure incident (Hero tooling or loadflow's
     * own database) that raises an OpsAlert, rather than a situation for a Hero to handle (a
     * message that did not reach a driver: a Hero task calls the driver). Raising a Hero task for
     * a failure of the Hero tooling could loop while it is down.
     */
    public boolean alertsOpsOnFailure() {
        return alertsOpsOnFailure;
    }

    /** The name in upper case, as logs print it. */
    @JsonValue
    public String name() {
        return wire.toUpperCase(Locale.ROOT);
    }

    /** Every action type: the built-in ones and those of the registered {@link ActionKind}s, in name order. */
    public static ActionType[] values() {
        ActionKinds.all();
        ActionType[] sorted = values;
        if (sorted == null || sorted.length != BY_WIRE.size()) {
            sorted = BY_WIRE.values().stream().sorted((a, b) -> a.wire.compareTo(b.wire)).toArray(ActionType[]::new);
            values = sorted;
        }
        return sorted.clone();
    }

    public static ActionType fromWire(String wire) {
        return find(wire).orElseThrow(() -> new IllegalArgumentException("unknown action type '" + wire + "'"));
    }

    /** The action type named {@code wire}, if there is one. */
    public static Optional<ActionType> find(String wire) {
        ActionKinds.all();
        return Optional.ofNullable(wire == null ? null : BY_WIRE.get(wire));
    }

    @Override
    public String toString() {
        return name();
    }
}
