package dev.loadflow.model.action;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.model.json.JsonReader;

/**
 * An action type added to loadflow: its {@link ActionType} (and with it its {@link Channel}),
 * its Java class, and how its fields go to and come back from JSON (a decision's log entry and
 * the outbox row's payload carry it; {@code type}, {@code subject} and {@code attempt} are
 * written and read for it).
 *
 * <p>An implementation is registered with Java's {@link java.util.ServiceLoader}: its class
 * name in {@code META-INF/services/dev.loadflow.model.action.ActionKind} on the classpath of
 * every service (the worker decides it, the dispatcher carries it out). It needs a public
 * constructor without arguments. The dispatcher sends it through the
 * {@code ChannelSender} bean of its channel. The built-in actions are not kinds: they are the
 * records of {@link Action}.
 *
 * @param <A> the action's record
 */
public interface ActionKind<A extends Action.Extension> {

    ActionType type();

    Class<A> javaType();

    /** Writes the action's own fields into {@code json}. */
    void write(A action, ObjectNode json);

    /**
     * Reads an action of this kind back; {@code payload} reads the fields {@link #write} wrote
     * and throws {@link dev.loadflow.model.json.InvalidJsonException} for one missing or wrong.
     */
    A read(String subject, int attempt, JsonReader payload);
}
