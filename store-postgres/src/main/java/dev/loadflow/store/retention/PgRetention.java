package dev.loadflow.store.retention;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What leaves the database, and when (the "Retention" keys): idle loads' log entries move to
 * {@code event_log_archive}; dead outbox rows (with their failures), ops alerts and parked
 * queue messages are deleted after the dead-row period; {@code processed_event} rows after
 * theirs. Every statement takes one batch, so no lock is held for long, and each says how many
 * rows it removed.
 */
public final class PgRetention {

    /** A page of the oldest log entries, after a cursor: where idle loads are found. */
    static final String OLDEST_ENTRIES = """
            SELECT recorded_at, load_id FROM event_log
            WHERE kind <> 'archived' AND recorded_at < $1 AND (recorded_at, load_id) > ($2, $3)
            ORDER BY recorded_at, load_id LIMIT $4""";

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
            marked AS (
                INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, body)
                SELECT load_id, seq + 1, 'archived:' || seq, 'archived', 'LogArchived', $3, $3,
                       jsonb_build_object('loadId', load_id, 'throughSeq', seq, 'archivedAt', $4::text)
                FROM idle
                ON CONFLICT DO NOTHING
                RETURNING load_id, seq),
            moved AS (
                DELETE FROM event_log e USING marked m
                WHERE e.load_id = m.load_id AND e.seq < m.seq
                RETURNING e.*),
            archived AS (
                INSERT INTO event_log_archive (load_id, seq, entry_id, kind, type, occurred_at, recorded_at,
                                               correlation_id, causation_id, body, archived_at)
                SELECT load_id, seq, entry_id, kind, type, occurred_at, recorded_at, correlation_id, causation_id,
                       body, $3
                FROM moved
                RETURNING 1)
            SELECT (SELECT count(*) FROM marked) AS loads, (SELECT count(*) FROM archived) AS entries""";

    /** Dead rows (their failures go with them, by the foreign key): a replay that got there first keeps its row. */
    static final String PRUNE_DEAD_OUTBOX = """
            WITH doomed AS (
                SELECT outbox_id FROM outbox WHERE status = 'dead' AND dead_at < $1
                ORDER BY dead_at LIMIT $2 FOR UPDATE SKIP LOCKED),
            failures AS (SELECT count(*) AS n FROM outbox_failure f JOIN doomed d USING (outbox_id)),
            deleted AS (DELETE FROM outbox o USING doomed d WHERE o.outbox_id = d.outbox_id RETURNING 1)
            SELECT (SELECT count(*) FROM deleted) AS rows, (SELECT n FROM failures) AS failures""";

    static final String PRUNE_ALERTS = """
            DELETE FROM ops_alert WHERE id IN (
                SELECT id FROM ops_alert WHERE raised_at < $1 ORDER BY raised_at LIMIT $2)""";

    static final String PRUNE_PARKED = """
            DELETE FROM load_queue_dead WHERE (load_id, message_id) IN (
                SELECT load_id, message_id FROM load_queue_dead WHERE parked_at < $1 ORDER BY parked_at LIMIT $2)""";

    static final String PRUNE_PROCESSED = """
            DELETE FROM processed_event WHERE (handler_name, event_id) IN (
                SELECT handler_name, event_id FROM processed_event WHERE processed_at < $1 ORDER BY processed_at LIMIT $2)""";

    private static final OffsetDateTime BEFORE_ALL = OffsetDateTime.parse("1970-01-01T00:00:00Z");

    private final Pool pool;

    public PgRetention(Pool pool) {
        this.pool = pool;
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
                Row moved = Pg.await(pool.preparedQuery(ARCHIVE_LOADS).execute(Tuple.tuple()
                        .addArrayOfString(candidates.toArray(String[]::new)).addOffsetDateTime(Pg.at(idleBefore))
                        .addOffsetDateTime(Pg.at(now)).addString(now.toString()))).iterator().next();
                loads += moved.getInteger("loads");
                entries += moved.getLong("entries");
            }
            if (seen < batchSize) {
                return new Archived(loads, entries);
            }
        }
    }

    /** What one batch of {@link #pruneDeadOutbox} deleted. */
    public record DeadRows(int rows, int failures) {
    }

    /** Deletes up to {@code batchSize} outbox rows that died before {@code before}, with their failures. */
    public DeadRows pruneDeadOutbox(Instant before, int batchSize) {
        Row row = Pg.await(pool.preparedQuery(PRUNE_DEAD_OUTBOX).execute(Tuple.of(Pg.at(before), batchSize))).iterator().next();
        return new DeadRows(row.getInteger("rows"), row.getInteger("failures"));
    }

    /** Deletes up to {@code batchSize} ops alerts raised before {@code before}. */
    public int pruneAlerts(Instant before, int batchSize) {
        return delete(PRUNE_ALERTS, before, batchSize);
    }

    /** Deletes up to {@code batchSize} parked queue messages parked before {@code before}. */
    public int pruneParkedMessages(Instant before, int batchSize) {
        return delete(PRUNE_PARKED, before, batchSize);
    }

    /** Deletes up to {@code batchSize} fan-out handlers' records made before {@code before}. */
    public int pruneProcessed(Instant before, int batchSize) {
        return delete(PRUNE_PROCESSED, before, batchSize);
    }

    private int delete(String sql, Instant before, int batchSize) {
        return Pg.await(pool.preparedQuery(sql).execute(Tuple.of(Pg.at(before), batchSize))).rowCount();
    }
}
