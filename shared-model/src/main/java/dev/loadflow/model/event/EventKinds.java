package dev.loadflow.model.event;

import dev.loadflow.model.kind.Kinds;

import java.util.List;

/** The {@link EventKind}s on the classpath, loaded once; their types are registered as they load. */
public final class EventKinds {

    private EventKinds() {
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static final class Loaded {

        static final Kinds<EventKind<?>> KINDS = (Kinds) Kinds.load(EventKind.class, EventKind::type,
                EventKind::javaType, EventPayload.Extension.class);
    }

    /** Every registered kind. */
    public static List<EventKind<?>> all() {
        return Loaded.KINDS.all();
    }

    /** The kind of {@code type}, or null for a built-in type. */
    public static EventKind<?> of(EventType type) {
        return Loaded.KINDS.of(type);
    }
}
