package dev.loadflow.store.stage;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.Optional;

/** {@link LoadStages} on PostgreSQL: one row per load, upserted. */
public final class PgLoadStages implements LoadStages {

    static final String UPSERT = """
            INSERT INTO load_stage (load_id, stage, outbox_id, updated_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (load_id) DO UPDATE SET stage = excluded.stage, outbox_id = excluded.outbox_id,
                                                updated_at = excluded.updated_at""";

    static final String STAGE = "SELECT stage FROM load_stage WHERE load_id = $1";

    private final Pool pool;

    public PgLoadStages(Pool pool) {
        this.pool = pool;
    }

    @Override
    public void set(String loadId, String stage, String outboxId, Instant now) {
        Pg.await(pool.preparedQuery(UPSERT).execute(Tuple.of(loadId, stage, outboxId, Pg.at(now))));
    }

    @Override
    public Optional<String> stage(String loadId) {
        var rows = Pg.await(pool.preparedQuery(STAGE).execute(Tuple.of(loadId)));
        return rows.size() == 0 ? Optional.empty() : Optional.of(rows.iterator().next().getString("stage"));
    }
}
