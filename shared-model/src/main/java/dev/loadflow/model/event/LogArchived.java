package dev.loadflow.model.event;

import java.time.Instant;
import java.util.Objects;

/**
 * The load's entries up to {@code throughSeq} left the hot log for the archive at
 * {@code archivedAt} (the retention job writes this, nobody else). It takes the seq after
 * them, so an append that read the load before it moved finds the version taken and reads
 * again; a read puts the archived entries back in front of it. It changes no state.
 */
public record LogArchived(String loadId, long throughSeq, Instant archivedAt) implements LogEntry {

    public static final String TYPE = "LogArchived";

    public LogArchived {
        Objects.requireNonNull(loadId, "loadId");
        Objects.requireNonNull(archivedAt, "archivedAt");
        if (throughSeq < 1) {
            throw new IllegalArgumentException("throughSeq must be >= 1, got " + throughSeq);
        }
    }

    @Override
    public String entryId() {
        return "archived:" + throughSeq;
    }

    @Override
    public String kind() {
        return KIND_ARCHIVED;
    }

    @Override
    public String typeName() {
        return TYPE;
    }

    @Override
    public Instant occurredAt() {
        return archivedAt;
    }

    @Override
    public String correlationId() {
        return null;
    }

    @Override
    public String causationId() {
        return null;
    }
}
