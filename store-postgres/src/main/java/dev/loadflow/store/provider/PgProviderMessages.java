package dev.loadflow.store.provider;

import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link ProviderMessages} on PostgreSQL: table {@code provider_message}, whose primary key
 * {@code (provider, message_id)} keeps a message with the first row recorded for it.
 */
public final class PgProviderMessages implements ProviderMessages {

    /**
     * Inserts the message, or updates its status when the same row holds it; answers the row that
     * holds it now and whether this statement inserted it ({@code xmax = 0} on a fresh row).
     */
    static final String RECORD = """
            WITH written AS (
                INSERT INTO provider_message AS m (provider, message_id, outbox_id, load_id, status, recorded_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $6)
                ON CONFLICT (provider, message_id) DO UPDATE
                    SET status = coalesce(EXCLUDED.status, m.status), updated_at = EXCLUDED.updated_at
                    WHERE m.outbox_id = EXCLUDED.outbox_id
                RETURNING m.outbox_id, (xmax = 0) AS inserted)
            SELECT outbox_id, inserted FROM written
            UNION ALL
            SELECT outbox_id, false FROM provider_message
            WHERE provider = $1 AND message_id = $2 AND NOT EXISTS (SELECT 1 FROM written)""";

    static final String HOLDERS = """
            SELECT message_id, outbox_id FROM provider_message WHERE provider = $1 AND message_id = ANY($2::text[])""";

    static final String MESSAGES_OF = """
            SELECT message_id FROM provider_message WHERE provider = $1 AND outbox_id = $2 ORDER BY recorded_at, message_id""";

    private final Pool pool;

    public PgProviderMessages(Pool pool) {
        this.pool = pool;
    }

    @Override
    public Recorded record(String provider, String messageId, String outboxId, String status, Instant at) {
        RowSet<Row> rows = Pg.await(pool.preparedQuery(RECORD).execute(Tuple.of(provider, messageId, outboxId,
                PgOutbox.loadOf(outboxId), status, Pg.at(at))));
        if (rows.size() == 0) {
            // a row recorded it at the same moment: this statement's snapshot predates it; read again
            return record(provider, messageId, outboxId, status, at);
        }
        Row row = rows.iterator().next();
        if (!outboxId.equals(row.getString("outbox_id"))) {
            return Recorded.HELD_BY_ANOTHER;
        }
        return row.getBoolean("inserted") ? Recorded.NEW : Recorded.ALREADY;
    }

    @Override
    public Map<String, String> holders(String provider, Collection<String> messageIds) {
        Map<String, String> holders = new HashMap<>();
        if (messageIds.isEmpty()) {
            return holders;
        }
        for (Row row : Pg.await(pool.preparedQuery(HOLDERS).execute(Tuple.tuple().addString(provider)
                .addArrayOfString(messageIds.toArray(String[]::new))))) {
            holders.put(row.getString("message_id"), row.getString("outbox_id"));
        }
        return holders;
    }

    @Override
    public List<String> messagesOf(String provider, String outboxId) {
        List<String> ids = new ArrayList<>();
        for (Row row : Pg.await(pool.preparedQuery(MESSAGES_OF).execute(Tuple.of(provider, outboxId)))) {
            ids.add(row.getString("message_id"));
        }
        return ids;
    }
}
