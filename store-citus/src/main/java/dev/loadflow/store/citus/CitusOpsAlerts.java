package dev.loadflow.store.citus;

import dev.loadflow.store.alert.PgOpsAlerts;
import io.vertx.sqlclient.Pool;

/** Ops alerts where Citus distributes them by load: a row's parked attempts counted on its load's shard, the upsert naming the key a shard enforces. */
public class CitusOpsAlerts extends PgOpsAlerts {

    static final String RAISE_ON_SHARD = RAISE_TEMPLATE.formatted("f.load_id = $1 AND ", "load_id, ");

    public CitusOpsAlerts(Pool pool) {
        super(pool, RAISE_ON_SHARD);
    }
}
