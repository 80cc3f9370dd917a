package dev.loadflow.model.action;

import java.util.List;
import java.util.ServiceLoader;

/** The {@link ActionKind}s on the classpath, loaded once; their types and channels are registered as they load. */
public final class ActionKinds {

    private ActionKinds() {
    }

    private static final class Loaded {

        static final List<ActionKind<?>> KINDS = ServiceLoader.load(ActionKind.class, ActionKind.class.getClassLoader())
                .stream().<ActionKind<?>>map(ServiceLoader.Provider::get).toList();

        static {
            for (ActionKind<?> kind : KINDS) {
                if (!Action.Extension.class.isAssignableFrom(kind.javaType())) {
                    throw new IllegalStateException(kind.getClass().getName() + " names " + kind.javaType().getName()
                            + ", which is no Action.Extension");
                }
                if (KINDS.stream().filter(other -> other.type() == kind.type()).count() > 1) {
                    throw new IllegalStateException("two action kinds for type '" + kind.type().wire() + "'");
                }
            }
        }
    }

    /** Every registered kind. */
    public static List<ActionKind<?>> all() {
        return Loaded.KINDS;
    }

    /** The kind of {@code type}, or null for a built-in type. */
    public static ActionKind<?> of(ActionType type) {
        for (ActionKind<?> kind : all()) {
            if (kind.type() == type) {
                return kind;
            }
        }
        return null;
    }
}
