package dev.loadflow.store.queue;

import dev.loadflow.store.audit.AuditInsert;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.pg.Wakeups;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@link DeadLetters} of {@link PgLoadQueue}: {@code load_queue_dead}, where a park moves a
 * message in the same statement that frees its load. A redrive and an acknowledgement write
 * their audit row in the transaction of the change.
 */
public final class PgDeadLetters implements DeadLetters {

    static final String PARKED = """
            SELECT load_id, message_id, body::text AS body, enqueued_at, receive_count, parked_at, reason, acknowledged_at
            FROM load_queue_dead ORDER BY parked_at DESC, load_id, message_id LIMIT $1""";

    static final String UNPARK = """
            DELETE FROM load_queue_dead WHERE load_id = $1 AND message_id = $2 RETURNING body::text AS body""";

    /** $1 load, $2 message, then the audit row's ($3 now): written only if it was parked and not acknowledged. */
    static final String ACKNOWLEDGE_PARKED = """
            WITH changed AS (
                UPDATE load_queue_dead SET acknowledged_at = $3
                WHERE load_id = $1 AND message_id = $2 AND acknowledged_at IS NULL RETURNING load_id),
            audit AS (""" + AuditInsert.fromCte("changed", "jsonb_build_object('acknowledged', count(*))", 3, true) + """
            )
            SELECT id FROM audit""";

    private final Pool pool;
    private final Clock clock;
    private final Wakeups wakeups;

    /** @param wakeups told after a redrive commits: the consumers' long polls wake */
    public PgDeadLetters(Pool pool, Clock clock, Wakeups wakeups) {
        this.pool = pool;
        this.clock = clock;
        this.wakeups = wakeups;
    }

    @Override
    public List<ParkedMessage> parked(int limit) {
        List<ParkedMessage> parked = new ArrayList<>();
        for (Row row : Pg.await(pool.preparedQuery(PARKED).execute(Tuple.of(limit)))) {
            parked.add(new ParkedMessage(row.getString("load_id"), row.getString("message_id"), row.getString("body"),
                    Pg.instant(row, "enqueued_at"), row.getInteger("receive_count"), Pg.instant(row, "parked_at"),
                    row.getString("reason"), Pg.instant(row, "acknowledged_at")));
        }
        return parked;
    }

    /** Out of {@code load_queue_dead}, into the queue as {@link PgLoadQueue#enqueue} would, and audited: one transaction. */
    @Override
    public Optional<Long> redrive(String loadId, String messageId, AuditRecord audit) {
        Instant now = clock.instant();
        Long auditId = Pg.await(pool.withTransaction(conn -> conn.preparedQuery(UNPARK)
                .execute(Tuple.of(loadId, messageId))
                .compose(rows -> rows.size() == 0
                        ? Future.<Long>succeededFuture(null)
                        : conn.preparedQuery(QueueStatements.ENQUEUE).execute(Tuple.of(loadId, messageId,
                                        rows.iterator().next().getString("body"), Pg.at(now)))
                                .compose(queued -> conn.preparedQuery(AuditInsert.INSERT).execute(
                                        AuditInsert.bind(Tuple.tuple(), audit, now).addString("{\"redriven\": true}")))
                                .map(inserted -> inserted.iterator().next().getLong("id")))));
        if (auditId != null) {
            wakeups.wake(PgNotifications.QUEUE);
        }
        return Optional.ofNullable(auditId);
    }

    @Override
    public Optional<Long> acknowledgeParked(String loadId, String messageId, AuditRecord audit) {
        RowSet<Row> rows = Pg.await(pool.preparedQuery(ACKNOWLEDGE_PARKED).execute(
                AuditInsert.bind(Tuple.of(loadId, messageId), audit, clock.instant())));
        return rows.size() == 0 ? Optional.empty() : Optional.of(rows.iterator().next().getLong("id"));
    }
}
