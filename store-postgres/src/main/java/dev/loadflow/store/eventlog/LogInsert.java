package dev.loadflow.store.eventlog;

import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.json.LogCodec;
import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;

/**
 * One log entry's part of another store's change (an operator's skip): an
 * {@code INSERT INTO event_log} after the load's last entry, joined to the statement of the
 * change. Like every append it fails on {@code event_log_pkey} when another append took the
 * seq first, and on {@code event_log_entry_key} when the entry is already logged.
 */
public final class LogInsert {

    /** How many parameters {@link #bind} adds: entry id, kind, type, occurred at, recorded at, correlation, causation, body. */
    public static final int PARAMETERS = 8;

    private LogInsert() {
    }

    /**
     * An insert for a CTE of a change's statement: the entry, for the load of each row of
     * {@code changedCte} (a {@code load_id} column; one row expected), which is the load of
     * parameter {@code $load}, the entry's parameters from {@code $first} on. Returns
     * {@code load_id, seq}. The load's last seq is read by the parameter, not the CTE's row:
     * Citus runs no subquery correlated with a CTE.
     */
    public static String fromCte(String changedCte, int load, int first) {
        return """
                INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at,
                                       correlation_id, causation_id, body)
                SELECT c.load_id, coalesce((SELECT max(l.seq) FROM event_log l WHERE l.load_id = $%10$d), 0) + 1,
                       $%1$d, $%2$d, $%3$d, $%4$d, $%5$d, $%6$d, $%7$d, $%8$d::text::jsonb
                FROM %9$s c
                RETURNING load_id, seq""".formatted(first, first + 1, first + 2, first + 3, first + 4, first + 5,
                first + 6, first + 7, changedCte, load);
    }

    /** Adds the {@link #PARAMETERS} values of {@code entry}, recorded {@code at}, to {@code params}. */
    public static Tuple bind(Tuple params, LogEntry entry, Instant at) {
        return params.addString(entry.entryId()).addString(entry.kind()).addString(entry.typeName())
                .addOffsetDateTime(Pg.at(entry.occurredAt())).addOffsetDateTime(Pg.at(at))
                .addString(entry.correlationId()).addString(entry.causationId()).addString(LogCodec.encode(entry));
    }
}
