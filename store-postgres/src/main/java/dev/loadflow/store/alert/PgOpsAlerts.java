package dev.loadflow.store.alert;

import dev.loadflow.store.audit.AuditInsert;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** {@link OpsAlerts} on PostgreSQL: one alert per outbox row, kind and death. */
public class PgOpsAlerts implements OpsAlerts {

    /**
     * One alert per row, kind and death: the death is the number of times the row was parked so
     * far, so raising again for the same death changes nothing, and a replayed row that dies
     * again raises a new alert.
     */
    protected static final String RAISE_TEMPLATE = """
            INSERT INTO ops_alert (load_id, outbox_id, action_type, kind, message, raised_at, death)
            SELECT $1, $2, $3, $4, $5, $6,
                   greatest(1, (SELECT count(*) FROM outbox_failure f WHERE %1$sf.outbox_id = $2 AND f.parked))
            ON CONFLICT (%2$soutbox_id, kind, death) DO NOTHING
            RETURNING id""";

    /**
     * {@link #RAISE_TEMPLATE} on one PostgreSQL; where alerts and failures are sharded by load, the
     * failures are counted on the load's shard ({@code f.load_id = $1 AND}) and the key is the load's
     * too ({@code load_id, }).
     */
    protected static final String RAISE = RAISE_TEMPLATE.formatted("", "");

    static final String LIST = """
            SELECT id, load_id, outbox_id, action_type, kind, message, raised_at, acknowledged_at FROM ops_alert
            WHERE $1::timestamptz IS NULL OR raised_at >= $1
            ORDER BY raised_at DESC, id DESC LIMIT $2 OFFSET $3""";

    /** $1 the alert, $2 now, then the audit row's parameters: written only if it was not acknowledged yet. */
    static final String ACKNOWLEDGE = """
            WITH changed AS (
                UPDATE ops_alert SET acknowledged_at = $2 WHERE id = $1 AND acknowledged_at IS NULL RETURNING id),
            audit AS (""" + AuditInsert.fromCte("changed", "jsonb_build_object('acknowledged', count(*))", 3, true) + """
            )
            SELECT id FROM audit""";

    private final Pool pool;
    private final String raise;

    public PgOpsAlerts(Pool pool) {
        this(pool, RAISE);
    }

    /** @param raise {@link #RAISE}, or its form for a schema whose keys are wider */
    protected PgOpsAlerts(Pool pool, String raise) {
        this.pool = pool;
        this.raise = raise;
    }

    @Override
    public boolean raise(String loadId, String outboxId, String actionType, String kind, String message, Instant now) {
        // the rows returned, not the count: an INSERT ... SELECT that Citus plans counts the rows it chose, inserted or not
        return Pg.await(pool.preparedQuery(raise).execute(Tuple.of(loadId, outboxId, actionType, kind, message,
                Pg.at(now)))).size() == 1;
    }

    @Override
    public List<OpsAlert> list(Instant since, int offset, int limit) {
        List<OpsAlert> alerts = new ArrayList<>();
        for (Row row : Pg.await(pool.preparedQuery(LIST).execute(Tuple.of(Pg.at(since), limit, offset)))) {
            alerts.add(new OpsAlert(row.getLong("id"), row.getString("load_id"), row.getString("outbox_id"),
                    row.getString("action_type"), row.getString("kind"), row.getString("message"),
                    Pg.instant(row, "raised_at"), Pg.instant(row, "acknowledged_at")));
        }
        return alerts;
    }

    @Override
    public Optional<Long> acknowledge(long id, Instant now, AuditRecord audit) {
        RowSet<Row> rows = Pg.await(pool.preparedQuery(ACKNOWLEDGE).execute(
                AuditInsert.bind(Tuple.of(id, Pg.at(now)), audit, now)));
        return rows.size() == 0 ? Optional.empty() : Optional.of(rows.iterator().next().getLong("id"));
    }
}
