package dev.loadflow.model.event;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.model.json.JsonReader;

import java.util.Set;

/**
 * An inbound event type added to loadflow: its {@link EventType}, its payload's Java class, and
 * how the payload's fields go to and come back from JSON (the envelope, ingest, the queue and the
 * log carry it).
 *
 * <p>An implementation is registered with Java's {@link java.util.ServiceLoader}: its class name
 * in {@code META-INF/services/dev.loadflow.model.event.EventKind} on the classpath of every
 * service, with a public constructor without arguments. The SOP decides nothing on an added type
 * (its decision is logged with no action); a policy of your own acts on it. The built-in types
 * are not kinds: they are the records of {@link EventPayload}.
 *
 * @param <P> the payload's record
 */
public interface EventKind<P extends EventPayload.Extension> {

    EventType type();

    Class<P> javaType();

    /** The payload's fields: ingest refuses any other. */
    Set<String> fields();

    /** Writes the payload's fields into {@code json}. */
    void write(P payload, ObjectNode json);

    /**
     * Reads a payload back; {@code payload} reads its fields and throws
     * {@link dev.loadflow.model.json.InvalidJsonException} naming one missing or wrong (ingest
     * answers {@code 400} with it).
     */
    P read(JsonReader payload);
}
