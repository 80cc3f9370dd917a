package dev.loadflow.store.retention;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Transaction;
import io.vertx.sqlclient.Tuple;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What leaves the database, and when (the "Retention" keys): idle loads' log entries move to
 * {@code event_log_archive}; dead outbox rows (with their failures), ops alerts and parked
 * queue messages are deleted once an operator acknowledged them and the dead-row period has
 * passed since (never while nobody handled them); {@code processed_event} rows after their
 * period. Every statement takes one batch, so no lock is held for long, and each says how many
 * rows it removed. What an operator handled is handed to an {@link Export} before the
 * transaction that deletes it commits.
 */
public class PgRetention {

    /** A page of the oldest log entries, after a cursor: where idle loads are found. */
    static final String OLDEST_ENTRIES = """
            SELECT recorded_at, load_id FROM event_log
            WHERE kind <> 'archived' AND recorded_at < $1 AND (recorded_at, load_id) > ($2, $3)
            ORDER BY recorded_at, load_id LIMIT $4""";

    /**
     * The move of the loads a statement's {@code idle} CTE found ($3 now, $4 now as text): each
     * one's marker at the seq after its last entry, then its entries before the marker to the
     * archive; %s: a further condition on the deleted entries ({@code e}), ending in AND.
     */
    protected static final String MOVE_IDLE = """
                marked AS (
                    INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, body)
                    SELECT load_id, seq + 1, 'archived:' || seq, 'archived', 'LogArchived', $3, $3,
                           jsonb_build_object('loadId', load_id, 'throughSeq', seq, 'archivedAt', $4::text)
                    FROM idle
                    ON CONFLICT DO NOTHING
                    RETURNING load_id, seq),
                moved AS (
                    DELETE FROM event_log e USING marked m
                    WHERE %se.load_id = m.load_id AND e.seq < m.seq
                    RETURNING e.*),
                archived AS (
                    INSERT INTO event_log_archive (load_id, seq, entry_id, kind, type, occurred_at, recorded_at,
                                                   correlation_id, causation_id, body, archived_at)
                    SELECT load_id, seq, entry_id, kind, type, occurred_at, recorded_at, correlation_id, causation_id,
                           body, $3
                    FROM moved
                    RETURNING 1)
                SELECT (SELECT count(*) FROM marked) AS loads, (SELECT count(*) FROM archived) AS entries""";

    /**
     * $1 the candidate loads, $2 the idle cutoff, $3 now, $4 now as text (the marker's body).
     * A load moves only when its last entry is older than the cutoff and nothing still needs it:
     * no pending outbox row, no scheduled timer, no held head, no queued message. Its marker
     * takes the seq after its last entry: an append that got there first (a late event) makes the
     * insert skip the load, and an append that comes after finds its version taken and reads
     * again, archive included. The entries before the marker move to the archive.
     */
    static final String ARCHIVE_LOADS = """
            WITH idle AS (
                SELECT k.load_id, last.seq
                FROM unnest($1::text[]) AS k(load_id)
                CROSS JOIN LATERAL (SELECT e.seq, e.kind, e.recorded_at FROM event_log e
                                    WHERE e.load_id = k.load_id ORDER BY e.seq DESC LIMIT 1) last
                WHERE last.recorded_at < $2 AND last.kind <> 'archived'
                  AND NOT EXISTS (SELECT FROM outbox o WHERE o.load_id = k.load_id AND o.status = 'pending')
                  AND NOT EXISTS (SELECT FROM timers t WHERE t.load_id = k.load_id AND t.status = 'scheduled')
                  AND NOT EXISTS (SELECT FROM held_load h WHERE h.load_id = k.load_id)
                  AND NOT EXISTS (SELECT FROM load_queue q WHERE q.load_id = k.load_id)),
""" + MOVE_IDLE.formatted("");

    /**
     * Dead rows acknowledged before $1 (their failures go with them, by the foreign key, and
     * into the row's export): a replay that got there first keeps its row.
     */
    static final String PRUNE_DEAD_OUTBOX = """
            WITH doomed AS (
                SELECT outbox_id FROM outbox WHERE status = 'dead' AND acknowledged_at < $1
                ORDER BY acknowledged_at LIMIT $2 FOR UPDATE SKIP LOCKED),
            failures AS (
                SELECT f.outbox_id, jsonb_agg(to_jsonb(f) - 'outbox_id' ORDER BY f.failed_at, f.attempt) AS list
                FROM outbox_failure f JOIN doomed d USING (outbox_id) GROUP BY f.outbox_id),
            deleted AS (DELETE FROM outbox o USING doomed d WHERE o.outbox_id = d.outbox_id RETURNING o.*)
            SELECT (to_jsonb(deleted) || jsonb_build_object('failures', coalesce(failures.list, '[]'::jsonb)))::text
                       AS exported,
                   coalesce(jsonb_array_length(failures.list), 0) AS failures
            FROM deleted LEFT JOIN failures USING (outbox_id)""";

    static final String PRUNE_ALERTS = """
            DELETE FROM ops_alert WHERE id IN (
                SELECT id FROM ops_alert WHERE acknowledged_at < $1 ORDER BY acknowledged_at LIMIT $2)
            RETURNING to_jsonb(ops_alert)::text AS exported""";

    static final String PRUNE_PARKED = """
            DELETE FROM load_queue_dead WHERE (load_id, message_id) IN (
                SELECT load_id, message_id FROM load_queue_dead WHERE acknowledged_at < $1
                ORDER BY acknowledged_at LIMIT $2)
            RETURNING to_jsonb(load_queue_dead)::text AS exported""";

    /**
     * Fan-out records older than $1, except those of a row that could still be sent (its event id
     * is the row's id): a dead row waits for an operator however long, and its replay must still
     * skip the webhooks that had it.
     */
    static final String PRUNE_PROCESSED = """
            DELETE FROM processed_event WHERE (handler_name, event_id) IN (
                SELECT p.handler_name, p.event_id FROM processed_event p
                WHERE p.processed_at < $1
                  AND NOT EXISTS (SELECT FROM outbox o WHERE o.outbox_id = p.event_id AND o.status <> 'dispatched')
                ORDER BY p.processed_at LIMIT $2)""";

    /**
     * Provider messages recorded before $1. A reconcile looks
     * only at the minutes around a row's first attempt, so an old record decides nothing.
     */
    static final String PRUNE_PROVIDER_MESSAGES = """
            DELETE FROM provider_message WHERE (provider, message_id) IN (
                SELECT provider, message_id FROM provider_message WHERE recorded_at < $1 ORDER BY recorded_at LIMIT $2)""";

    /** Inbound messages' routes recorded before $1, pruned with the provider messages. */
    static final String PRUNE_INBOUND_MESSAGES = """
            DELETE FROM inbound_message WHERE (provider, message_id) IN (
                SELECT provider, message_id FROM inbound_message WHERE received_at < $1 ORDER BY received_at LIMIT $2)""";

    private static final OffsetDateTime BEFORE_ALL = OffsetDateTime.parse("1970-01-01T00:00:00Z");

    /**
     * Where rows an operator handled are written before they are deleted: called inside the
     * deleting transaction, which rolls back when it throws, so a row is never gone unless
     * written. A commit that fails after the write leaves the rows written and still there: an
     * export may hold a row twice, never miss one.
     */
    @FunctionalInterface
    public interface Export {

        /** Exports nothing. */
        Export NONE = (table, rows) -> {
        };

        /** Writes {@code rows} (each one JSON object) of {@code table} durably, or throws. */
        void write(String table, List<String> rows) throws IOException;
    }

    protected final Pool pool;
    private final Export export;

    public PgRetention(Pool pool) {
        this(pool, Export.NONE);
    }

    public PgRetention(Pool pool, Export export) {
        this.pool = pool;
        this.export = export;
    }

    /** What one pass of {@link #archiveIdleLoads} moved. */
    public record Archived(int loads, long entries) {
    }

    /**
     * Moves every load whose last entry was recorded before {@code idleBefore} (and that nothing
     * still needs) to the archive, {@code batchSize} log entries looked at per step, each step
     * one short transaction. Walks the log from its oldest entry once.
     */
    public Archived archiveIdleLoads(Instant idleBefore, Instant now, int batchSize) {
        OffsetDateTime cursorAt = BEFORE_ALL;
        String cursorLoad = "";
        int loads = 0;
        long entries = 0;
        while (true) {
            Set<String> candidates = new LinkedHashSet<>();
            int seen = 0;
            for (Row row : Pg.await(pool.preparedQuery(OLDEST_ENTRIES)
                    .execute(Tuple.of(Pg.at(idleBefore), cursorAt, cursorLoad, batchSize)))) {
                cursorAt = row.getOffsetDateTime("recorded_at");
                cursorLoad = row.getString("load_id");
                candidates.add(cursorLoad);
                seen++;
            }
            if (!candidates.isEmpty()) {
                Archived moved = archive(candidates, idleBefore, now);
                loads += moved.loads();
                entries += moved.entries();
            }
            if (seen < batchSize) {
                return new Archived(loads, entries);
            }
        }
    }

    /** Moves those of {@code candidates} that are idle since before {@code idleBefore} to the archive, in one statement ({@link #ARCHIVE_LOADS}). */
    protected Archived archive(Set<String> candidates, Instant idleBefore, Instant now) {
        Row moved = Pg.await(pool.preparedQuery(ARCHIVE_LOADS).execute(Tuple.tuple()
                .addArrayOfString(candidates.toArray(String[]::new)).addOffsetDateTime(Pg.at(idleBefore))
                .addOffsetDateTime(Pg.at(now)).addString(now.toString()))).iterator().next();
        return new Archived(moved.getInteger("loads"), moved.getLong("entries"));
    }

    /** What one batch of {@link #pruneDeadOutbox} deleted. */
    public record DeadRows(int rows, int failures) {
    }

    /** Deletes up to {@code batchSize} dead outbox rows acknowledged before {@code before}, with their failures. */
    public DeadRows pruneDeadOutbox(Instant before, int batchSize) {
        List<Row> rows = deleteDead(before, batchSize);
        int failures = 0;
        for (Row row : rows) {
            failures += row.getInteger("failures");
        }
        return new DeadRows(rows.size(), failures);
    }

    /** Deletes the dead rows, exported ({@link #PRUNE_DEAD_OUTBOX}): a row each, with its {@code failures}. */
    protected List<Row> deleteDead(Instant before, int batchSize) {
        return deleteExporting("outbox", PRUNE_DEAD_OUTBOX, Tuple.of(Pg.at(before), batchSize));
    }

    /** Deletes up to {@code batchSize} ops alerts acknowledged before {@code before}. */
    public int pruneAlerts(Instant before, int batchSize) {
        return deleteAlerts(before, batchSize).size();
    }

    /** Deletes the alerts, exported ({@link #PRUNE_ALERTS}). */
    protected List<Row> deleteAlerts(Instant before, int batchSize) {
        return deleteExporting("ops_alert", PRUNE_ALERTS, Tuple.of(Pg.at(before), batchSize));
    }

    /** Deletes up to {@code batchSize} parked queue messages acknowledged before {@code before}. */
    public int pruneParkedMessages(Instant before, int batchSize) {
        return deleteExporting("load_queue_dead", PRUNE_PARKED, Tuple.of(Pg.at(before), batchSize)).size();
    }

    /** Deletes up to {@code batchSize} fan-out handlers' records made before {@code before}. */
    public int pruneProcessed(Instant before, int batchSize) {
        return delete(PRUNE_PROCESSED, before, batchSize);
    }

    /** Runs {@code sql} (a delete returning each row as {@code exported}) and hands the rows to the export before committing. */
    private List<Row> deleteExporting(String table, String sql, Tuple params) {
        return deleteExporting(table, connection -> {
            List<Row> rows = new ArrayList<>();
            Pg.await(connection.preparedQuery(sql).execute(params)).forEach(rows::add);
            return rows;
        });
    }

    /** Runs {@code delete} (rows returned as {@code exported}) in a transaction and hands the rows to the export before committing. */
    protected List<Row> deleteExporting(String table, java.util.function.Function<SqlConnection, List<Row>> delete) {
        SqlConnection connection = Pg.await(pool.getConnection());
        try {
            Transaction tx = Pg.await(connection.begin());
            try {
                List<Row> rows = delete.apply(connection);
                if (!rows.isEmpty()) {
                    List<String> exported = new ArrayList<>(rows.size());
                    rows.forEach(row -> exported.add(row.getString("exported")));
                    export.write(table, exported);
                }
                Pg.await(tx.commit());
                return rows;
            } catch (IOException e) {
                Pg.await(tx.rollback());
                throw new UncheckedIOException("retention kept " + table + "'s rows: they could not be exported", e);
            } catch (RuntimeException e) {
                tx.rollback();
                throw e;
            }
        } finally {
            connection.close();
        }
    }

    /**
     * Deletes up to {@code batchSize} provider messages and up to as many inbound messages' routes
     * recorded before {@code before}; returns how many went.
     */
    public int pruneProviderMessages(Instant before, int batchSize) {
        return delete(PRUNE_PROVIDER_MESSAGES, before, batchSize) + delete(PRUNE_INBOUND_MESSAGES, before, batchSize);
    }

    private int delete(String sql, Instant before, int batchSize) {
        return Pg.await(pool.preparedQuery(sql).execute(Tuple.of(Pg.at(before), batchSize))).rowCount();
    }
}
