package dev.loadflow.testing;

import dev.loadflow.store.queue.UnrunReceives;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** {@link UnrunReceives} in memory, for a queue's tests that need no database; PostgreSQL's is {@code PgUnrunReceives}. */
public final class MemoryUnrunReceives implements UnrunReceives {

    private final Map<Key, Integer> receives = new ConcurrentHashMap<>();

    @Override
    public void add(Collection<Key> messages) {
        messages.forEach(key -> receives.merge(key, 1, Integer::sum));
    }

    @Override
    public Map<Key, Integer> of(Collection<Key> messages) {
        Map<Key, Integer> found = new HashMap<>();
        messages.forEach(key -> {
            Integer n = receives.get(key);
            if (n != null) {
                found.put(key, n);
            }
        });
        return found;
    }

    @Override
    public void forget(Collection<Key> messages) {
        messages.forEach(receives::remove);
    }

    /** The messages with unrun receives recorded. */
    public int size() {
        return receives.size();
    }
}
