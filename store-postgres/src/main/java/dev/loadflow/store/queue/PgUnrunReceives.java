package dev.loadflow.store.queue;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link UnrunReceives} on PostgreSQL ({@code queue_unrun_receive}, on the coordinator on Citus
 * as the load queue's own tables are). Rows are written only when a message is given back unrun,
 * and read only for redelivered messages: a queue flowing without failures never touches it.
 */
public final class PgUnrunReceives implements UnrunReceives {

    /** SQS keeps a message 14 days at most: a row older than that names a message that is gone. */
    static final Duration RETENTION = Duration.ofDays(14);

    /**
     * $1, $2 the messages' loads and ids (one element per receive: a message named twice gains
     * two), $3 now, $4 before when a row is stale (one being added is not swept: a statement
     * changes a row once). Rows are locked in key order, so two adds never deadlock.
     */
    static final String ADD = """
            WITH added AS (
                SELECT load_id, message_id, count(*)::int AS receives
                FROM unnest($1::text[], $2::text[]) AS a(load_id, message_id)
                GROUP BY load_id, message_id),
            stale AS (
                DELETE FROM queue_unrun_receive s WHERE s.last_at < $4
                  AND NOT EXISTS (SELECT 1 FROM added a WHERE a.load_id = s.load_id AND a.message_id = s.message_id))
            INSERT INTO queue_unrun_receive (load_id, message_id, receives, last_at)
            SELECT load_id, message_id, receives, $3 FROM added ORDER BY load_id, message_id
            ON CONFLICT (load_id, message_id) DO UPDATE
                SET receives = queue_unrun_receive.receives + excluded.receives, last_at = excluded.last_at""";

    static final String OF = """
            SELECT u.load_id, u.message_id, u.receives
            FROM queue_unrun_receive u JOIN unnest($1::text[], $2::text[]) AS k(load_id, message_id)
              ON u.load_id = k.load_id AND u.message_id = k.message_id
            WHERE u.load_id = ANY($1)""";

    static final String FORGET = """
            DELETE FROM queue_unrun_receive u USING unnest($1::text[], $2::text[]) AS k(load_id, message_id)
            WHERE u.load_id = ANY($1) AND u.load_id = k.load_id AND u.message_id = k.message_id""";

    private final Pool pool;
    private final Clock clock;

    public PgUnrunReceives(Pool pool, Clock clock) {
        this.pool = pool;
        this.clock = clock;
    }

    @Override
    public void add(Collection<Key> messages) {
        if (messages.isEmpty()) {
            return;
        }
        Pg.await(pool.preparedQuery(ADD).execute(keys(messages)
                .addValue(Pg.at(clock.instant())).addValue(Pg.at(clock.instant().minus(RETENTION)))));
    }

    @Override
    public Map<Key, Integer> of(Collection<Key> messages) {
        Map<Key, Integer> unrun = new HashMap<>();
        if (messages.isEmpty()) {
            return unrun;
        }
        for (Row row : Pg.await(pool.preparedQuery(OF).execute(keys(messages)))) {
            unrun.put(new Key(row.getString("load_id"), row.getString("message_id")), row.getInteger("receives"));
        }
        return unrun;
    }

    @Override
    public void forget(Collection<Key> messages) {
        if (!messages.isEmpty()) {
            Pg.await(pool.preparedQuery(FORGET).execute(keys(messages)));
        }
    }

    private static Tuple keys(Collection<Key> messages) {
        return Tuple.tuple().addArrayOfString(messages.stream().map(Key::loadId).toArray(String[]::new))
                .addArrayOfString(messages.stream().map(Key::messageId).toArray(String[]::new));
    }
}
