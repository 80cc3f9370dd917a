package dev.loadflow.store.queue;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** {@link QueueView} of {@link PgLoadQueue}: counts over {@code load_queue}, locking nothing. */
public final class PgQueueView implements QueueView {

    static final String WAITING = """
            SELECT load_id, count(*)::int - 1 AS waiting FROM load_queue WHERE load_id = ANY($1) GROUP BY load_id""";

    static final String STATS = "SELECT count(*) AS depth, min(enqueued_at) AS oldest FROM load_queue";

    private final Pool pool;

    public PgQueueView(Pool pool) {
        this.pool = pool;
    }

    @Override
    public QueueStats stats() {
        Row row = Pg.await(pool.preparedQuery(STATS).execute()).iterator().next();
        return new QueueStats(row.getLong("depth"), Optional.ofNullable(Pg.instant(row, "oldest")));
    }

    @Override
    public Map<String, Integer> waiting(Collection<String> loadIds) {
        Map<String, Integer> waiting = new LinkedHashMap<>();
        if (!loadIds.isEmpty()) {
            Pg.await(pool.preparedQuery(WAITING).execute(Tuple.tuple().addArrayOfString(loadIds.toArray(String[]::new))))
                    .forEach(row -> waiting.put(row.getString("load_id"), row.getInteger("waiting")));
        }
        return waiting;
    }
}
