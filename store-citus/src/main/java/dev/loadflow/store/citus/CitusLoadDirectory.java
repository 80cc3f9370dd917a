package dev.loadflow.store.citus;

import dev.loadflow.store.overview.PgLoadDirectory;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.util.ArrayList;
import java.util.List;

/** The load directory where Citus distributes the schema by load: the stage as a set of its own, a page's details read load by load. */
public class CitusLoadDirectory extends PgLoadDirectory {

    /**
     * {@code AT_STAGE} as a set of its own: the loads whose stage is {@code $n} (the one last
     * set, else their latest assignment's), a join of co-located tables on the load's id that
     * each shard answers for its loads. Citus cannot check a stage load by load against the
     * intersection of other filters (a subquery correlated with a set operation's result).
     */
    static final String AT_STAGE_SET = """
            SELECT e.load_id FROM event_log e LEFT JOIN load_stage s ON s.load_id = e.load_id
            WHERE e.type = 'LoadAssigned' AND coalesce(s.stage, e.body -> 'payload' ->> 'stage') = $%d
              AND NOT EXISTS (SELECT 1 FROM event_log later
                              WHERE later.load_id = e.load_id AND later.type = 'LoadAssigned' AND later.seq > e.seq)""";
    /**
     * {@code DETAILS} for one load ($1), each table read by the load's id: where Citus distributes the
     * log, every read is on the load's shard (a join of a list of loads to the distributed
     * tables is not a statement Citus runs), and a page's loads are read side by side.
     */
    static final String DETAILS_OF_ONE = """
            SELECT $1::text AS load_id,
                   a.body -> 'payload' ->> 'clientId' AS client_id,
                   a.body -> 'payload' ->> 'driverPhone' AS driver_phone,
                   coalesce((SELECT s.stage FROM load_stage s WHERE s.load_id = $1), a.body -> 'payload' ->> 'stage') AS stage,
                   (SELECT e.recorded_at FROM event_log e WHERE e.load_id = $1 ORDER BY e.seq DESC LIMIT 1) AS last_activity,
                   EXISTS (SELECT 1 FROM held_load h WHERE h.load_id = $1) AS held,
                   (SELECT count(*) FROM outbox o WHERE o.load_id = $1 AND o.status = 'dead') AS dead_rows,
                   (SELECT count(*) FROM timers t WHERE t.load_id = $1 AND t.status = 'scheduled') AS open_timers
            FROM (SELECT (SELECT e.body FROM event_log e WHERE e.load_id = $1 AND e.type = 'LoadAssigned'
                          ORDER BY e.seq DESC LIMIT 1) AS body) a""";

    public CitusLoadDirectory(Pool pool) {
        super(pool);
    }

    @Override
    protected String atStage(String stage, List<String> sets, List<Object> params) {
        params.add(stage);
        sets.add(AT_STAGE_SET.formatted(params.size()));
        return "";
    }

    /** Each load by itself ({@link #DETAILS_OF_ONE}), all sent at once. */
    @Override
    protected List<Found> details(List<String> loads) {
        List<Found> found = new ArrayList<>();
        ByNode.each(pool, loads, DETAILS_OF_ONE, Tuple::of).orThrow().values().forEach(rows -> rows.forEach(row -> found.add(found(row))));
        return found;
    }
}
