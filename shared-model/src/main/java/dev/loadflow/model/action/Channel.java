package dev.loadflow.model.action;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Where the dispatcher sends an action, by its name in {@code outbox.channel}. The five below
 * are built in; an {@link ActionKind} adds its own channel ({@link #register}). There is one
 * instance per name, so channels compare with {@code ==}.
 */
public final class Channel {

    private static final Pattern WIRE = Pattern.compile("[a-z][a-z0-9_-]{0,31}");
    private static final Map<String, Channel> BY_WIRE = new ConcurrentHashMap<>();
    /** {@link #values()} as last sorted; made again when a channel was registered since. */
    private static volatile Channel[] values;

    /** The SMS service: messages to drivers, external people. */
    public static final Channel SMS = register("sms");
    /** The Hero task service: work for human operators. */
    public static final Channel HERO = register("hero");
    /** The Hero Slack channel. */
    public static final Channel SLACK = register("slack");
    /** Applied by the dispatcher in loadflow's own database (timers, stage). */
    public static final Channel INTERNAL = register("internal");
    /** An event delivered once to each of several subscribers (ADR 0006): a client's stage webhooks. */
    public static final Channel FANOUT = register("fanout");

    private final String wire;

    private Channel(String wire) {
        this.wire = wire;
    }

    /**
     * The channel named {@code wire}, made on first use: lower case letters, digits, {@code -}
     * and {@code _}, up to 32 characters.
     */
    public static Channel register(String wire) {
        if (wire == null || !WIRE.matcher(wire).matches()) {
            throw new IllegalArgumentException("a channel's name is lower case letters, digits, - and _, got '" + wire + "'");
        }
        return BY_WIRE.computeIfAbsent(wire, Channel::new);
    }

    public String wire() {
        return wire;
    }

    /** The name in upper case, as metrics and logs print it. */
    @JsonValue
    public String name() {
        return wire.toUpperCase(Locale.ROOT);
    }

    /** Every channel: the built-in ones and those of the registered {@link ActionKind}s, in name order. */
    public static Channel[] values() {
        ActionKinds.all();
        Channel[] sorted = values;
        if (sorted == null || sorted.length != BY_WIRE.size()) {
            sorted = BY_WIRE.values().stream().sorted((a, b) -> a.wire.compareTo(b.wire)).toArray(Channel[]::new);
            values = sorted;
        }
        return sorted.clone();
    }

    /** The channel named {@code wire} in {@code outbox.channel}. */
    public static Channel fromWire(String wire) {
        ActionKinds.all();
        Channel channel = BY_WIRE.get(wire);
        if (channel == null) {
            throw new IllegalArgumentException("unknown channel '" + wire + "'");
        }
        return channel;
    }

    @Override
    public String toString() {
        return name();
    }
}
