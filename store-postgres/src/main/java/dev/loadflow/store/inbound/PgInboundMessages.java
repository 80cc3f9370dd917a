package dev.loadflow.store.inbound;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.Optional;

/**
 * Table {@code inbound_message}: which load each message a provider delivered was routed to. The
 * first route recorded for a message is its route for good: a message is ingested on one load
 * only, whichever load its sender has by the time the provider sends it again.
 */
public final class PgInboundMessages {

    static final String FIND = "SELECT load_id FROM inbound_message WHERE provider = $1 AND message_id = $2";

    /** Records the route unless one is recorded; answers the load recorded now (this one, or the earlier one). */
    static final String ROUTE = """
            WITH written AS (
                INSERT INTO inbound_message (provider, message_id, load_id, received_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (provider, message_id) DO NOTHING
                RETURNING load_id)
            SELECT load_id FROM written
            UNION ALL
            SELECT load_id FROM inbound_message WHERE provider = $1 AND message_id = $2 AND NOT EXISTS (SELECT 1 FROM written)""";

    private final Pool pool;

    public PgInboundMessages(Pool pool) {
        this.pool = pool;
    }

    /** The load {@code messageId} was routed to, if it was. */
    public Optional<String> loadOf(String provider, String messageId) {
        RowSet<Row> rows = Pg.await(pool.preparedQuery(FIND).execute(Tuple.of(provider, messageId)));
        return rows.size() == 0 ? Optional.empty() : Optional.of(rows.iterator().next().getString("load_id"));
    }

    /**
     * Routes {@code messageId} to {@code loadId} unless it was routed already; the load it is
     * routed to now (another when an earlier delivery of the message was routed first).
     */
    public String route(String provider, String messageId, String loadId, Instant at) {
        RowSet<Row> rows = Pg.await(pool.preparedQuery(ROUTE).execute(Tuple.of(provider, messageId, loadId, Pg.at(at))));
        if (rows.size() == 0) {
            // another delivery routed it at the same moment: this statement's snapshot predates it; read again
            return loadOf(provider, messageId).orElseGet(() -> route(provider, messageId, loadId, at));
        }
        return rows.iterator().next().getString("load_id");
    }
}
