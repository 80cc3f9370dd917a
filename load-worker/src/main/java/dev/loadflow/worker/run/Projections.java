package dev.loadflow.worker.run;

import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.store.eventlog.EventStore;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The worker's projections of recently seen loads, kept so a run reads and decodes only what
 * was logged since (one {@link EventStore#readAfter} round trip for a whole batch) instead of
 * the load's whole log. Never a source of truth: the log is append-only, so a projection at
 * version v plus the entries after v is exactly the projection of the whole log, whoever
 * appended them, as long as the database keeps what it acknowledged; where it did not (a
 * failover to a standby that lacked the last commits), the run finds out at its append or its
 * duplicate check and {@link #forget}s the load. Least recently used loads are dropped past
 * {@code capacity}.
 */
public final class Projections {

    private final EventStore events;
    private final Map<String, LoadState> states;

    public Projections(EventStore events, int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be >= 0, got " + capacity);
        }
        this.events = events;
        this.states = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, LoadState> eldest) {
                return size() > capacity;
            }
        };
    }

    /** The current state of each load, read from the log as far as it is not known yet. */
    public Map<String, LoadState> current(Collection<String> loadIds) {
        Map<String, Long> versions = new LinkedHashMap<>();
        Map<String, LoadState> known = new LinkedHashMap<>();
        synchronized (states) {
            for (String loadId : loadIds) {
                LoadState state = states.get(loadId);
                if (state != null) {
                    known.put(loadId, state);
                }
                versions.put(loadId, state == null ? 0L : state.version());
            }
        }
        Map<String, List<RecordedEntry>> newer = events.readAfter(versions);
        Map<String, LoadState> current = new LinkedHashMap<>();
        for (String loadId : loadIds) {
            LoadState state = known.get(loadId);
            List<RecordedEntry> entries = newer.get(loadId);
            current.put(loadId, state == null ? LoadState.project(new LoadLog(loadId,
                    entries.isEmpty() ? 0 : entries.getLast().seq(), entries)) : state.plus(entries));
        }
        remember(current.values());
        return current;
    }

    /** The current state of one load. */
    public LoadState current(String loadId) {
        return current(List.of(loadId)).get(loadId);
    }

    /**
     * Drops what is kept of {@code loadId}: its next read is of its whole log. For when the log
     * turned out not to be what was kept (an append lost to a conflict, or commits the database
     * acknowledged and then lost in a failover).
     */
    public void forget(String loadId) {
        synchronized (states) {
            states.remove(loadId);
        }
    }

    /** Keeps states this worker just appended (newer versions win over older ones). */
    public void remember(Collection<LoadState> fresh) {
        synchronized (states) {
            for (LoadState state : fresh) {
                LoadState old = states.get(state.loadId());
                if (old == null || old.version() < state.version()) {
                    states.put(state.loadId(), state);
                }
            }
        }
    }
}
