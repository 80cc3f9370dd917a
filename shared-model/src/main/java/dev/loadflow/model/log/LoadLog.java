package dev.loadflow.model.log;

import java.util.List;

/**
 * A load's whole log as read at one moment. {@code version} is the seq of the last entry
 * (0 for a load with no log yet) and is what an append must name as its expected version.
 */
public record LoadLog(String loadId, long version, List<RecordedEntry> entries) {

    public LoadLog {
        entries = List.copyOf(entries);
    }

    public boolean contains(String entryId) {
        return entries.stream().anyMatch(e -> e.entry().entryId().equals(entryId));
    }
}
