package dev.loadflow.model.kind;

import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * The registrations of one sort found on the classpath by {@link ServiceLoader} (the action
 * kinds, the event kinds): each names a type, at most one per type, and a Java class that must
 * be of the sort's extension interface.
 *
 * @param <K> the registration's interface
 */
public final class Kinds<K> {

    private final List<K> all;
    private final Function<K, Object> typeOf;

    private Kinds(List<K> all, Function<K, Object> typeOf) {
        this.all = all;
        this.typeOf = typeOf;
    }

    /**
     * Loads every {@code service} on the classpath (with the class loader that loaded it).
     *
     * @param typeOf    the type a registration names
     * @param javaType  the Java class a registration names
     * @param extension what that class must implement
     * @throws IllegalStateException for a class that does not, or two registrations of one type
     */
    public static <K> Kinds<K> load(Class<K> service, Function<K, Object> typeOf, Function<K, Class<?>> javaType,
                                    Class<?> extension) {
        List<K> all = ServiceLoader.load(service, service.getClassLoader()).stream().map(ServiceLoader.Provider::get).toList();
        for (K kind : all) {
            if (!extension.isAssignableFrom(javaType.apply(kind))) {
                throw new IllegalStateException(kind.getClass().getName() + " names " + javaType.apply(kind).getName()
                        + ", which is no " + extension.getName());
            }
            if (all.stream().filter(other -> typeOf.apply(other) == typeOf.apply(kind)).count() > 1) {
                throw new IllegalStateException("two " + service.getSimpleName() + "s for type " + typeOf.apply(kind));
            }
        }
        return new Kinds<>(all, typeOf);
    }

    public List<K> all() {
        return all;
    }

    /** The registration of {@code type}, or null for a type with none (a built-in type). */
    public K of(Object type) {
        for (K kind : all) {
            if (typeOf.apply(kind) == type) {
                return kind;
            }
        }
        return null;
    }
}
