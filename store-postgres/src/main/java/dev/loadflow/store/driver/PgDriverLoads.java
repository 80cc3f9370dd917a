package dev.loadflow.store.driver;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.util.Optional;

/**
 * Which load a driver's number belongs to, from the log: the load whose most recent
 * {@code LoadAssigned} named that number, among those still assigned to it (a load reassigned
 * to another driver since is not). Most recent assignment wins when a driver has several loads.
 * An assignment the load refused (posted by a source other than the one that first assigned the
 * load: {@code LoadState#refusesAssignmentBy}) neither routes a number nor replaces one.
 */
public final class PgDriverLoads {

    /**
     * The number's assignments newest first ({@code event_log_driver_phone_idx}, V24), the first
     * that its load took (its source is the one of the load's first assignment) and that no later
     * assignment its load took replaced. The checks per candidate walk that load's entries on the
     * primary key.
     */
    static final String CURRENT_LOAD = """
            SELECT a.load_id FROM event_log a
            WHERE a.type = 'LoadAssigned' AND (a.body -> 'payload' ->> 'driverPhone') = $1
              AND (a.body ->> 'source') IS NOT DISTINCT FROM
                  (SELECT f.body ->> 'source' FROM event_log f
                   WHERE f.load_id = a.load_id AND f.type = 'LoadAssigned' ORDER BY f.seq LIMIT 1)
              AND (SELECT true FROM event_log b
                   WHERE b.load_id = a.load_id AND b.seq > a.seq AND b.type = 'LoadAssigned'
                     AND (b.body ->> 'source') IS NOT DISTINCT FROM (a.body ->> 'source') LIMIT 1) IS NULL
            ORDER BY a.recorded_at DESC
            LIMIT 1""";

    private final Pool pool;

    public PgDriverLoads(Pool pool) {
        this.pool = pool;
    }

    /** The load {@code phone} (E.164) drives now; empty when no load is assigned to it. */
    public Optional<String> currentLoadOf(String phone) {
        RowSet<Row> rows = Pg.await(pool.preparedQuery(CURRENT_LOAD).execute(Tuple.of(phone)));
        return rows.size() == 0 ? Optional.empty() : Optional.of(rows.iterator().next().getString("load_id"));
    }
}
