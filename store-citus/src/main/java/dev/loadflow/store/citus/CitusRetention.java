package dev.loadflow.store.citus;

import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.retention.PgRetention;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Retention where Citus distributes the schema by load. A statement there may not lock rows of
 * many shards ({@code FOR UPDATE}), join the coordinator's queue tables to a shard's, or
 * correlate a subquery with a set returning function; so each pass chooses its rows first and
 * then removes them one load at a time, each statement on one shard, as one PostgreSQL runs it.
 */
public class CitusRetention extends PgRetention {


    /** Of $1 the loads, those with a queued message (the queue stays on the coordinator). */
    static final String QUEUED = "SELECT DISTINCT load_id FROM load_queue WHERE load_id = ANY($1)";

    /** {@code ARCHIVE_LOADS} for the one load $1 (whose queue was found empty just before). */
    static final String ARCHIVE_LOAD = """
            WITH idle AS (
                SELECT last.load_id, last.seq
                FROM (SELECT e.load_id, e.seq, e.kind, e.recorded_at FROM event_log e
                      WHERE e.load_id = $1 ORDER BY e.seq DESC LIMIT 1) last
                WHERE last.recorded_at < $2 AND last.kind <> 'archived'
                  AND NOT EXISTS (SELECT FROM outbox o WHERE o.load_id = $1 AND o.status = 'pending')
                  AND NOT EXISTS (SELECT FROM timers t WHERE t.load_id = $1 AND t.status = 'scheduled')
                  AND NOT EXISTS (SELECT FROM held_load h WHERE h.load_id = $1)),
""" + MOVE_IDLE.formatted("e.load_id = $1 AND ");

    static final String DEAD_OUTBOX = """
            SELECT load_id, outbox_id FROM outbox WHERE status = 'dead' AND acknowledged_at < $1
            ORDER BY acknowledged_at LIMIT $2""";

    /** {@code PRUNE_DEAD_OUTBOX} for the one row $2 of load $1, if it is still dead and acknowledged before $3. */
    static final String PRUNE_DEAD_ROW = """
            WITH failures AS (
                SELECT jsonb_agg(to_jsonb(f) - 'outbox_id' ORDER BY f.failed_at, f.attempt) AS list
                FROM outbox_failure f WHERE f.load_id = $1 AND f.outbox_id = $2),
            deleted AS (
                DELETE FROM outbox o
                WHERE o.load_id = $1 AND o.outbox_id = $2 AND o.status = 'dead' AND o.acknowledged_at < $3
                RETURNING o.*)
            SELECT (to_jsonb(deleted) || jsonb_build_object('failures', coalesce(failures.list, '[]'::jsonb)))::text
                       AS exported,
                   coalesce(jsonb_array_length(failures.list), 0) AS failures
            FROM deleted CROSS JOIN failures""";

    static final String ALERTS = """
            SELECT load_id, id FROM ops_alert WHERE acknowledged_at < $1 ORDER BY acknowledged_at LIMIT $2""";

    /** Citus takes no function but an immutable one in a RETURNING clause: the row is made JSON outside it. */
    static final String PRUNE_ALERT = """
            WITH gone AS (
                DELETE FROM ops_alert a WHERE a.load_id = $1 AND a.id = $2 AND a.acknowledged_at < $3 RETURNING a.*)
            SELECT to_jsonb(gone)::text AS exported FROM gone""";

    /** The fan-out records older than $1 (on the coordinator), oldest first. */
    static final String PROCESSED = """
            SELECT handler_name, event_id FROM processed_event WHERE processed_at < $1 ORDER BY processed_at LIMIT $2""";

    /** Of the rows $2 (of loads $1), those that could still be sent: their records stay. */
    static final String UNSENT = """
            SELECT outbox_id FROM outbox WHERE load_id = ANY($1) AND outbox_id = ANY($2) AND status <> 'dispatched'""";

    static final String DELETE_PROCESSED = """
            DELETE FROM processed_event WHERE (handler_name, event_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
              AND processed_at < $3""";

    public CitusRetention(Pool pool, Export export) {
        super(pool, export);
    }

    /** The candidates with nothing queued (the queue is on the coordinator), then each by itself ({@link #ARCHIVE_LOAD}). */
    @Override
    protected Archived archive(Set<String> candidates, Instant idleBefore, Instant now) {
        Set<String> idle = new LinkedHashSet<>(candidates);
        for (Row queued : Pg.await(pool.preparedQuery(QUEUED).execute(Tuple.tuple()
                .addArrayOfString(candidates.toArray(String[]::new))))) {
            idle.remove(queued.getString("load_id"));
        }
        int loads = 0;
        long entries = 0;
        for (String load : idle) {
            Row moved = Pg.await(pool.preparedQuery(ARCHIVE_LOAD).execute(Tuple.of(load, Pg.at(idleBefore),
                    Pg.at(now), now.toString()))).iterator().next();
            loads += moved.getLong("loads").intValue();
            entries += moved.getLong("entries");
        }
        return new Archived(loads, entries);
    }

    @Override
    protected List<Row> deleteDead(Instant before, int batchSize) {
        return deleteExporting("outbox", connection -> oneByOne(connection, DEAD_OUTBOX, PRUNE_DEAD_ROW, before, batchSize));
    }

    @Override
    protected List<Row> deleteAlerts(Instant before, int batchSize) {
        return deleteExporting("ops_alert", connection -> oneByOne(connection, ALERTS, PRUNE_ALERT, before, batchSize));
    }

    /**
     * Chooses up to {@code batchSize} rows with {@code choose} (their load and id) and deletes
     * each with {@code deleteOne} ($1 load, $2 id, $3 {@code before}), all sent at once: a
     * statement per row, each on its load's shard. A row changed since it was chosen (a replay)
     * is not deleted.
     */
    private static List<Row> oneByOne(SqlConnection connection, String choose, String deleteOne, Instant before, int batchSize) {
        List<Tuple> rows = new ArrayList<>();
        for (Row chosen : Pg.await(connection.preparedQuery(choose).execute(Tuple.of(Pg.at(before), batchSize)))) {
            rows.add(Tuple.of(chosen.getValue(0), chosen.getValue(1), Pg.at(before)));
        }
        List<Row> deleted = new ArrayList<>();
        if (!rows.isEmpty()) {
            for (RowSet<Row> each = Pg.await(connection.preparedQuery(deleteOne).executeBatch(rows)); each != null; each = each.next()) {
                each.forEach(deleted::add);
            }
        }
        return deleted;
    }

    /**
     * The records are on the coordinator, the rows on the shards: the rows that could still be
     * sent are read between choosing the records and deleting them (a row replayed in that moment
     * loses its records, as it would a moment later once they are old enough).
     */
    @Override
    public int pruneProcessed(Instant before, int batchSize) {
        List<String> handlers = new ArrayList<>();
        List<String> events = new ArrayList<>();
        for (Row row : Pg.await(pool.preparedQuery(PROCESSED).execute(Tuple.of(Pg.at(before), batchSize)))) {
            handlers.add(row.getString("handler_name"));
            events.add(row.getString("event_id"));
        }
        if (events.isEmpty()) {
            return 0;
        }
        Set<String> unsent = new LinkedHashSet<>();
        Pg.await(pool.preparedQuery(UNSENT).execute(Tuple.tuple()
                        .addArrayOfString(events.stream().map(PgOutbox::loadOf).distinct().toArray(String[]::new))
                        .addArrayOfString(events.toArray(String[]::new))))
                .forEach(row -> unsent.add(row.getString("outbox_id")));
        List<String> goneHandlers = new ArrayList<>();
        List<String> goneEvents = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            if (!unsent.contains(events.get(i))) {
                goneHandlers.add(handlers.get(i));
                goneEvents.add(events.get(i));
            }
        }
        return goneEvents.isEmpty() ? 0 : Pg.await(pool.preparedQuery(DELETE_PROCESSED).execute(Tuple.tuple()
                .addArrayOfString(goneHandlers.toArray(String[]::new)).addArrayOfString(goneEvents.toArray(String[]::new))
                .addOffsetDateTime(Pg.at(before)))).rowCount();
    }
}
