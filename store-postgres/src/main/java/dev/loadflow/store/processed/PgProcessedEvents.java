package dev.loadflow.store.processed;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/** {@link ProcessedEvents} on PostgreSQL: the primary key does the deduplication. */
public final class PgProcessedEvents implements ProcessedEvents {

    static final String MARK = """
            INSERT INTO processed_event (handler_name, event_id, processed_at) VALUES ($1, $2, $3)
            ON CONFLICT (handler_name, event_id) DO NOTHING""";

    static final String IS_PROCESSED = "SELECT 1 FROM processed_event WHERE handler_name = $1 AND event_id = $2";

    static final String HANDLED_BY = """
            SELECT handler_name FROM processed_event WHERE event_id = $1 AND handler_name = ANY($2::text[])""";

    private final Pool pool;

    public PgProcessedEvents(Pool pool) {
        this.pool = pool;
    }

    @Override
    public boolean markProcessed(String handler, String eventId, Instant now) {
        return Pg.await(pool.preparedQuery(MARK).execute(Tuple.of(handler, eventId, Pg.at(now)))).rowCount() == 1;
    }

    @Override
    public boolean isProcessed(String handler, String eventId) {
        return Pg.await(pool.preparedQuery(IS_PROCESSED).execute(Tuple.of(handler, eventId))).size() == 1;
    }

    @Override
    public Set<String> handledBy(String eventId, Collection<String> handlers) {
        Set<String> handled = new HashSet<>();
        for (Row row : Pg.await(pool.preparedQuery(HANDLED_BY)
                .execute(Tuple.tuple().addString(eventId).addArrayOfString(handlers.toArray(String[]::new))))) {
            handled.add(row.getString("handler_name"));
        }
        return handled;
    }
}
