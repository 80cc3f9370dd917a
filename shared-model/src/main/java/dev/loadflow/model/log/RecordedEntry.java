package dev.loadflow.model.log;

import dev.loadflow.model.event.LogEntry;

import java.time.Instant;

/** A log entry as stored: its position in the load's log and when it was recorded. */
public record RecordedEntry(long seq, Instant recordedAt, LogEntry entry) {
}
