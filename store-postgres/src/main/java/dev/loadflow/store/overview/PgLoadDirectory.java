package dev.loadflow.store.overview;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds loads for the console: by client, by the driver's number, by stage (V29), by whether a load is held, has
 * dead outbox rows or an ask waiting for the driver, and by activity since a time; each filter
 * reads the index made for it (the assignments by client, V28, and by driver's number, V24; the
 * held loads; the dead rows; the scheduled timers; the log by time), the filters given are
 * intersected, and only the page's loads are then looked up by their key.
 */
public class PgLoadDirectory {

    /**
     * What to find: each filter null (or false) when not given. {@code activeSince} alone lists the
     * loads with a log entry since then.
     */
    public record Query(String clientId, String driverPhone, String stage, boolean held, boolean deadRows, boolean openAsk,
                        Instant activeSince, int offset, int limit) {

        public boolean filtered() {
            return clientId != null || driverPhone != null || stage != null || held || deadRows || openAsk || activeSince != null;
        }
    }

    /**
     * One load as the list shows it: its latest assignment's client and driver, its stage (the
     * last one sent to the stage webhooks, else the assignment's), its last log entry, and what
     * waits on it.
     */
    public record Found(String loadId, String clientId, String driverPhone, String stage, Instant lastActivity,
                        boolean held, long deadRows, long openTimers) {
    }

    static final String BY_CLIENT = """
            SELECT DISTINCT load_id FROM event_log WHERE type = 'LoadAssigned' AND body -> 'payload' ->> 'clientId' = $%d""";
    static final String BY_DRIVER = """
            SELECT DISTINCT load_id FROM event_log WHERE type = 'LoadAssigned' AND body -> 'payload' ->> 'driverPhone' = $%d""";
    /**
     * A page of the loads at a stage, when the stage is the only filter: the one their last
     * {@code update_stage} set, or, where none was set (the stage never changed), their
     * assignments' stage. Each side reads its index in load id order only as far as the page
     * ($2 = offset + limit), so a stage most loads share costs a page, not a set of most loads.
     */
    static final String BY_STAGE_PAGE = """
            SELECT load_id FROM (
                (SELECT load_id FROM load_stage WHERE stage = $1 ORDER BY load_id LIMIT $2)
                UNION
                (SELECT DISTINCT e.load_id FROM event_log e
                 WHERE e.type = 'LoadAssigned' AND e.body -> 'payload' ->> 'stage' = $1
                   AND NOT EXISTS (SELECT 1 FROM load_stage s WHERE s.load_id = e.load_id)
                 ORDER BY e.load_id LIMIT $2)) found
            ORDER BY load_id LIMIT $3 OFFSET $4""";
    /**
     * A found load's stage is {@code $n}, as the list shows it: checked load by load when another
     * filter gives the loads (a stage most loads share would otherwise be a set of most loads).
     */
    static final String AT_STAGE = """
            coalesce((SELECT s.stage FROM load_stage s WHERE s.load_id = found.load_id),
                     (SELECT e.body -> 'payload' ->> 'stage' FROM event_log e
                      WHERE e.load_id = found.load_id AND e.type = 'LoadAssigned' ORDER BY e.seq DESC LIMIT 1)) = $%d""";
    static final String HELD = "SELECT load_id FROM held_load";
    static final String DEAD = "SELECT DISTINCT load_id FROM outbox WHERE status = 'dead'";
    static final String OPEN_ASK = "SELECT DISTINCT load_id FROM timers WHERE status = 'scheduled'";
    /** The loads with a log entry since then: the one filter that reads a share of the log itself (its recent part). */
    static final String ACTIVE_SINCE = "SELECT DISTINCT load_id FROM event_log WHERE recorded_at >= $%d";

    static final String DETAILS = """
            SELECT c.load_id,
                   a.body -> 'payload' ->> 'clientId' AS client_id,
                   a.body -> 'payload' ->> 'driverPhone' AS driver_phone,
                   coalesce((SELECT s.stage FROM load_stage s WHERE s.load_id = c.load_id), a.body -> 'payload' ->> 'stage') AS stage,
                   (SELECT e.recorded_at FROM event_log e WHERE e.load_id = c.load_id ORDER BY e.seq DESC LIMIT 1) AS last_activity,
                   EXISTS (SELECT 1 FROM held_load h WHERE h.load_id = c.load_id) AS held,
                   (SELECT count(*) FROM outbox o WHERE o.load_id = c.load_id AND o.status = 'dead') AS dead_rows,
                   (SELECT count(*) FROM timers t WHERE t.load_id = c.load_id AND t.status = 'scheduled') AS open_timers
            FROM unnest($1::text[]) WITH ORDINALITY AS c(load_id, n)
            LEFT JOIN LATERAL (SELECT e.body FROM event_log e WHERE e.load_id = c.load_id AND e.type = 'LoadAssigned'
                               ORDER BY e.seq DESC LIMIT 1) a ON true
            ORDER BY c.n""";

    protected final Pool pool;

    public PgLoadDirectory(Pool pool) {
        this.pool = pool;
    }

    /** One page of the loads {@code query} finds, ordered by load id; one more than {@code limit} tells there is a next page. */
    public List<Found> find(Query query) {
        if (!query.filtered()) {
            throw new IllegalArgumentException("a search needs at least one filter (activeSince lists every active load)");
        }
        List<String> sets = new ArrayList<>();
        List<Object> params = new ArrayList<>();
        if (query.clientId() != null) {
            params.add(query.clientId());
            sets.add(BY_CLIENT.formatted(params.size()));
        }
        if (query.driverPhone() != null) {
            params.add(query.driverPhone());
            sets.add(BY_DRIVER.formatted(params.size()));
        }
        if (query.held()) {
            sets.add(HELD);
        }
        if (query.deadRows()) {
            sets.add(DEAD);
        }
        if (query.openAsk()) {
            sets.add(OPEN_ASK);
        }
        if (query.activeSince() != null) {
            params.add(Pg.at(query.activeSince()));
            sets.add(ACTIVE_SINCE.formatted(params.size()));
        }
        String sql;
        if (sets.isEmpty()) {
            sql = BY_STAGE_PAGE;
            params.addAll(List.of(query.stage(), query.offset() + query.limit(), query.limit(), query.offset()));
        } else {
            String atStage = query.stage() == null ? "" : atStage(query.stage(), sets, params);
            params.add(query.limit());
            params.add(query.offset());
            // only fixed fragments are joined here; every value is a parameter
            sql = "SELECT load_id FROM (" + String.join(" INTERSECT ", sets) + ") found" + atStage + " ORDER BY load_id LIMIT $"
                    + (params.size() - 1) + " OFFSET $" + params.size();
        }
        List<String> loads = new ArrayList<>();
        for (Row row : Pg.await(pool.preparedQuery(sql).execute(Tuple.from(params)))) {
            loads.add(row.getString("load_id"));
        }
        if (loads.isEmpty()) {
            return List.of();
        }
        return details(loads);
    }

    /**
     * The condition that a found load is at {@code stage} ({@link #AT_STAGE}, its value added to
     * {@code params}), as a WHERE clause on the loads the {@code sets} found.
     */
    protected String atStage(String stage, List<String> sets, List<Object> params) {
        params.add(stage);
        return " WHERE " + AT_STAGE.formatted(params.size());
    }

    /** The loads' details, in their order, in one statement ({@link #DETAILS}). */
    protected List<Found> details(List<String> loads) {
        List<Found> found = new ArrayList<>();
        Pg.await(pool.preparedQuery(DETAILS).execute(Tuple.of(loads.toArray(String[]::new)))).forEach(row -> found.add(found(row)));
        return found;
    }

    protected static Found found(Row row) {
        return new Found(row.getString("load_id"), row.getString("client_id"), row.getString("driver_phone"),
                row.getString("stage"), Pg.instant(row, "last_activity"), row.getBoolean("held"), row.getLong("dead_rows"),
                row.getLong("open_timers"));
    }
}
