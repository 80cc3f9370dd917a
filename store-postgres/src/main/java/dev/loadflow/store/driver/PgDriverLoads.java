package dev.loadflow.store.driver;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.util.ArrayList;
import java.util.List;

/**
 * Which loads a driver's number belongs to, from the log: the loads whose most recent
 * {@code LoadAssigned} named that number (a load reassigned to another driver since is not), the
 * most recently assigned first; the caller chooses among them when a driver has several.
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
    static final String CURRENT_LOADS = """
            SELECT a.load_id, a.body -> 'payload' ->> 'clientId' AS client_id FROM event_log a
            WHERE a.type = 'LoadAssigned' AND (a.body -> 'payload' ->> 'driverPhone') = $1
              AND (a.body ->> 'source') IS NOT DISTINCT FROM
                  (SELECT f.body ->> 'source' FROM event_log f
                   WHERE f.load_id = a.load_id AND f.type = 'LoadAssigned' ORDER BY f.seq LIMIT 1)
              AND (SELECT true FROM event_log b
                   WHERE b.load_id = a.load_id AND b.seq > a.seq AND b.type = 'LoadAssigned'
                     AND (b.body ->> 'source') IS NOT DISTINCT FROM (a.body ->> 'source') LIMIT 1) IS NULL
            ORDER BY a.recorded_at DESC
            LIMIT $2""";

    /** The most loads one number is looked up on: a driver has a handful at once. */
    static final int MOST = 20;

    /** A load a number is assigned to now, and its client. */
    public record Assignment(String loadId, String clientId) {
    }

    private final Pool pool;

    public PgDriverLoads(Pool pool) {
        this.pool = pool;
    }

    /** The loads {@code phone} (E.164) drives now, the most recently assigned first; empty when none is. */
    public List<Assignment> currentLoadsOf(String phone) {
        List<Assignment> loads = new ArrayList<>();
        for (Row row : Pg.await(pool.preparedQuery(CURRENT_LOADS).execute(Tuple.of(phone, MOST)))) {
            loads.add(new Assignment(row.getString("load_id"), row.getString("client_id")));
        }
        return loads;
    }
}
