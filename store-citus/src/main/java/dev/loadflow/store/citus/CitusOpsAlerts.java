package dev.loadflow.store.citus;

import dev.loadflow.store.alert.PgOpsAlerts;
import io.vertx.sqlclient.Pool;

/** Ops alerts where Citus distributes them by load: a row's parked attempts counted on its load's shard, the upsert naming the key a shard enforces. */
public class CitusOpsAlerts extends PgOpsAlerts {

    static final String RAISE_ON_SHARD = RAISE
            .replace("WHERE f.outbox_id = $2", "WHERE f.load_id = $1 AND f.outbox_id = $2")
            .replace("ON CONFLICT (outbox_id, kind, death)", "ON CONFLICT (load_id, outbox_id, kind, death)");

    public CitusOpsAlerts(Pool pool) {
        super(pool, RAISE_ON_SHARD);
    }
}
