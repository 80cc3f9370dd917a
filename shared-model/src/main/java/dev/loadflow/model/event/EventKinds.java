package dev.loadflow.model.event;

import java.util.List;
import java.util.ServiceLoader;

/** The {@link EventKind}s on the classpath, loaded once; their types are registered as they load. */
public final class EventKinds {

    private EventKinds() {
    }

    private static final class Loaded {

        static final List<EventKind<?>> KINDS = ServiceLoader.load(EventKind.class, EventKind.class.getClassLoader())
                .stream().<EventKind<?>>map(ServiceLoader.Provider::get).toList();

        static {
            for (EventKind<?> kind : KINDS) {
                if (!EventPayload.Extension.class.isAssignableFrom(kind.javaType())) {
                    throw new IllegalStateException(kind.getClass().getName() + " names " + kind.javaType().getName()
                            + ", which is no EventPayload.Extension");
                }
                if (KINDS.stream().filter(other -> other.type() == kind.type()).count() > 1) {
                    throw new IllegalStateException("two event kinds for type '" + kind.type().wire() + "'");
                }
            }
        }
    }

    /** Every registered kind. */
    public static List<EventKind<?>> all() {
        return Loaded.KINDS;
    }

    /** The kind of {@code type}, or null for a built-in type. */
    public static EventKind<?> of(EventType type) {
        for (EventKind<?> kind : all()) {
            if (kind.type() == type) {
                return kind;
            }
        }
        return null;
    }
}
