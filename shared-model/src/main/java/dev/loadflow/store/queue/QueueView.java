package dev.loadflow.store.queue;

import java.util.Collection;
import java.util.Map;

/** What the load queue holds, read only: for its metrics and for the admin views of held loads. */
public interface QueueView {

    QueueStats stats();

    /**
     * How many messages wait behind each load's head, for those of {@code loadIds} with queued
     * messages; a backend that cannot count per load (SQS) answers an empty map.
     */
    default Map<String, Integer> waiting(Collection<String> loadIds) {
        return Map.of();
    }
}
