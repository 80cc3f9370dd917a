package dev.loadflow.store.queue;

import dev.loadflow.model.event.MessageSkipped;
import dev.loadflow.store.audit.AuditInsert;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.eventlog.ConcurrencyConflictException;
import dev.loadflow.store.eventlog.DuplicateEntryException;
import dev.loadflow.store.eventlog.LogInsert;
import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@link HeldLoads} on PostgreSQL ({@code held_load}); an operator's change and its audit row are one statement. */
public class PgHeldLoads implements HeldLoads {

    private static final String COLUMNS = "load_id, message_id, message_type, reason, held_since, state, receipt_handle";

    /**
     * Holding again at the same message (a retry failed, an unreadable head seen again) keeps when
     * the hold began, and never undoes an operator's skip of it: a skip that lands while the
     * consumer is holding the head again stays a skip, and the next look at the head ends it.
     */
    static final String HOLD = """
            INSERT INTO held_load (load_id, message_id, message_type, reason, held_since, state, receipt_handle)
            VALUES ($1, $2, $3, $4, $5, 'held', $6)
            ON CONFLICT (load_id) DO UPDATE SET
                held_since = CASE WHEN held_load.message_id = excluded.message_id
                                  THEN held_load.held_since ELSE excluded.held_since END,
                state = CASE WHEN held_load.message_id = excluded.message_id AND held_load.state = 'skipped'
                             THEN 'skipped' ELSE 'held' END,
                message_id = excluded.message_id, message_type = excluded.message_type, reason = excluded.reason,
                receipt_handle = coalesce(excluded.receipt_handle, held_load.receipt_handle)""";

    static final String AMONG = "SELECT " + COLUMNS + " FROM held_load WHERE load_id = ANY($1)";

    /** $1 since, $2 until, $3 message type: each null for any. */
    private static final String MATCHING = """
            ($1::timestamptz IS NULL OR held_since >= $1) AND ($2::timestamptz IS NULL OR held_since < $2)
            AND ($3::text IS NULL OR message_type = $3)""";

    static final String LIST = "SELECT " + COLUMNS + " FROM held_load WHERE " + MATCHING
            + " ORDER BY held_since, load_id LIMIT $4";

    static final String COUNT = "SELECT count(*)::int AS held FROM held_load WHERE state <> 'skipped' AND " + MATCHING;

    static final String HANDED_BACK = "UPDATE held_load SET receipt_handle = $3 WHERE load_id = $1 AND message_id = $2";

    static final String RELEASE = "DELETE FROM held_load WHERE load_id = $1 AND message_id = $2";

    /** Whether the load's log has the entry: which key a skip refused with no key named ran into. */
    protected static final String LOGGED = "SELECT 1 FROM event_log WHERE load_id = $1 AND entry_id = $2";

    static final String RETRY = """
            WITH changed AS (
                UPDATE held_load SET state = 'retry' WHERE load_id = $1 AND state IN ('held', 'retry')
                RETURNING %1$s),
            audit AS (
            %2$s
            )
            SELECT changed.*, audit.id AS audit_id FROM changed, audit""".formatted(COLUMNS,
            AuditInsert.fromCte("changed", "jsonb_build_object('messageId', min(message_id), 'state', 'retry')", 2, true));

    /** $1 load, $2 message; the entry from $3, the audit from $11. */
    static final String SKIP = """
            WITH changed AS (
                UPDATE held_load SET state = 'skipped'
                WHERE load_id = $1 AND message_id = $2 AND state IN ('held', 'retry')
                RETURNING %1$s),
            logged AS (
            %2$s
            ),
            audit AS (
            %3$s
            )
            SELECT changed.*, audit.id AS audit_id FROM changed, audit""".formatted(COLUMNS,
            LogInsert.fromCte("changed", 1, 3),
            AuditInsert.fromCte("logged", "jsonb_build_object('messageId', $2::text, 'seq', max(seq))",
                    3 + LogInsert.PARAMETERS, true));

    protected final Pool pool;
    private final Clock clock;

    public PgHeldLoads(Pool pool, Clock clock) {
        this.pool = pool;
        this.clock = clock;
    }

    @Override
    public void hold(HeldLoad held) {
        Pg.await(pool.preparedQuery(HOLD).execute(Tuple.of(held.loadId(), held.messageId(), held.messageType(),
                held.reason(), Pg.at(held.since()), held.receiptHandle())));
    }

    @Override
    public Map<String, HeldLoad> among(Collection<String> loadIds) {
        Map<String, HeldLoad> held = new LinkedHashMap<>();
        if (loadIds.isEmpty()) {
            return held;
        }
        for (Row row : Pg.await(pool.preparedQuery(AMONG).execute(Tuple.tuple()
                .addArrayOfString(loadIds.toArray(String[]::new))))) {
            held.put(row.getString("load_id"), held(row));
        }
        return held;
    }

    @Override
    public int count() {
        return count(Filter.ALL);
    }

    @Override
    public int count(Filter filter) {
        return Pg.await(pool.preparedQuery(COUNT).execute(matching(filter))).iterator().next().getInteger("held");
    }

    @Override
    public List<HeldLoad> list(Filter filter, int limit) {
        List<HeldLoad> held = new ArrayList<>();
        Pg.await(pool.preparedQuery(LIST).execute(matching(filter).addInteger(limit))).forEach(row -> held.add(held(row)));
        return held;
    }

    private static Tuple matching(Filter filter) {
        return Tuple.of(Pg.at(filter.since()), Pg.at(filter.until()), filter.messageType());
    }

    @Override
    public void handedBack(String loadId, String messageId, String receiptHandle) {
        Pg.await(pool.preparedQuery(HANDED_BACK).execute(Tuple.of(loadId, messageId, receiptHandle)));
    }

    @Override
    public Optional<Changed> retry(String loadId, AuditRecord audit) {
        return changed(Pg.await(pool.preparedQuery(RETRY).execute(
                AuditInsert.bind(Tuple.of(loadId), audit, clock.instant()))));
    }

    @Override
    public Optional<Changed> skip(MessageSkipped skipped, AuditRecord audit) {
        Tuple params = LogInsert.bind(Tuple.of(skipped.loadId(), skipped.messageId()), skipped, clock.instant());
        try {
            return changed(Pg.await(pool.preparedQuery(SKIP).execute(AuditInsert.bind(params, audit, clock.instant()))));
        } catch (RuntimeException e) {
            if (Pg.violates(e, "event_log_entry_key")) {
                throw new DuplicateEntryException(skipped.loadId(), List.of(skipped.messageId()), e);
            }
            if (Pg.violates(e, "event_log_pkey")) {
                throw new ConcurrencyConflictException(skipped.loadId(), -1, e);
            }
            throw unnamed(skipped, e);
        }
    }

    /** A failure of {@code skipped}'s write that names none of its keys, as it is to be thrown: as it is on PostgreSQL. */
    protected RuntimeException unnamed(MessageSkipped skipped, RuntimeException failure) {
        return failure;
    }

    @Override
    public void release(String loadId, String messageId) {
        Pg.await(pool.preparedQuery(RELEASE).execute(Tuple.of(loadId, messageId)));
    }

    private static Optional<Changed> changed(RowSet<Row> rows) {
        if (rows.size() == 0) {
            return Optional.empty();
        }
        Row row = rows.iterator().next();
        return Optional.of(new Changed(held(row), row.getLong("audit_id")));
    }

    private static HeldLoad held(Row row) {
        return new HeldLoad(row.getString("load_id"), row.getString("message_id"), row.getString("message_type"),
                row.getString("reason"), Pg.instant(row, "held_since"), HeldLoad.State.ofWire(row.getString("state")),
                row.getString("receipt_handle"));
    }
}
