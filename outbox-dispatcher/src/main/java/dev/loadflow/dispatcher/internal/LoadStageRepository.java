package dev.loadflow.dispatcher.internal;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;

/** The {@code load_stage} read model that {@code update_stage} actions keep current. */
public final class LoadStageRepository {

    static final String UPSERT = """
            INSERT INTO load_stage (load_id, stage, outbox_id, updated_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (load_id) DO UPDATE SET stage = excluded.stage, outbox_id = excluded.outbox_id,
                                                updated_at = excluded.updated_at""";

    private final Pool pool;

    public LoadStageRepository(Pool pool) {
        this.pool = pool;
    }

    public void set(String loadId, String stage, String outboxId, Instant now) {
        Pg.await(pool.preparedQuery(UPSERT).execute(Tuple.of(loadId, stage, outboxId, Pg.at(now))));
    }
}
