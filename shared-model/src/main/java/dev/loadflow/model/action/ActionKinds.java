package dev.loadflow.model.action;

import dev.loadflow.model.kind.Kinds;

import java.util.List;

/** The {@link ActionKind}s on the classpath, loaded once; their types and channels are registered as they load. */
public final class ActionKinds {

    private ActionKinds() {
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static final class Loaded {

        static final Kinds<ActionKind<?>> KINDS = (Kinds) Kinds.load(ActionKind.class, ActionKind::type,
                ActionKind::javaType, Action.Extension.class);
    }

    /** Every registered kind. */
    public static List<ActionKind<?>> all() {
        return Loaded.KINDS.all();
    }

    /** The kind of {@code type}, or null for a built-in type. */
    public static ActionKind<?> of(ActionType type) {
        return Loaded.KINDS.of(type);
    }
}
