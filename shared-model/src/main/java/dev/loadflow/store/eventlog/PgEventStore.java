package dev.loadflow.store.eventlog;

import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.json.LogCodec;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.store.outbox.OutboxMessage;
import dev.loadflow.store.pg.Pg;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link EventStore} on PostgreSQL. The version check is the primary key: entries take the
 * seqs after {@code expectedVersion}, so a concurrent append that committed first makes this
 * one fail on {@code event_log_pkey}; an append that names a version the log has not reached
 * inserts nothing. Log rows and outbox rows go in one transaction.
 */
public final class PgEventStore implements EventStore {

    static final String READ = """
            SELECT seq, kind, recorded_at, body::text AS body
            FROM event_log WHERE load_id = $1 ORDER BY seq""";

    static final String CONTAINS = "SELECT 1 FROM event_log WHERE load_id = $1 AND entry_id = $2";

    /** Inserts the entries at seq $2+1..; inserts nothing when the log is not at version $2. */
    static final String APPEND_ENTRIES = """
            INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at,
                                   correlation_id, causation_id, body)
            SELECT $1, $2 + e.ord, e.entry_id, e.kind, e.type, e.occurred_at, $3,
                   e.correlation_id, e.causation_id, e.body::jsonb
            FROM unnest($4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[], $9::text[], $10::text[])
                 WITH ORDINALITY AS e(entry_id, kind, type, occurred_at, correlation_id, causation_id, body, ord)
            WHERE $2 = 0 OR EXISTS (SELECT 1 FROM event_log WHERE load_id = $1 AND seq = $2)""";

    static final String INSERT_OUTBOX = """
            INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, attempts,
                                available_at, correlation_id, causation_id, created_at)
            SELECT o.outbox_id, $1, o.action_type, o.channel, o.payload::jsonb, 'pending', 0,
                   o.available_at, o.correlation_id, o.causation_id, $2
            FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[], $9::text[])
                 AS o(outbox_id, action_type, channel, payload, available_at, correlation_id, causation_id)""";

    private final Pool pool;
    private final Clock clock;

    public PgEventStore(Pool pool, Clock clock) {
        this.pool = pool;
        this.clock = clock;
    }

    @Override
    public LoadLog read(String loadId) {
        var rows = Pg.await(pool.preparedQuery(READ).execute(Tuple.of(loadId)));
        List<RecordedEntry> entries = new ArrayList<>(rows.size());
        long version = 0;
        for (Row row : rows) {
            version = row.getLong("seq");
            entries.add(new RecordedEntry(version, Pg.instant(row, "recorded_at"),
                    LogCodec.decode(row.getString("kind"), row.getString("body"))));
        }
        return new LoadLog(loadId, version, entries);
    }

    @Override
    public boolean contains(String loadId, String entryId) {
        return Pg.await(pool.preparedQuery(CONTAINS).execute(Tuple.of(loadId, entryId))).size() == 1;
    }

    @Override
    public long append(String loadId, List<LogEntry> entries, long expectedVersion, List<OutboxMessage> outbox) {
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("an append needs at least one entry");
        }
        if (expectedVersion < 0) {
            throw new IllegalArgumentException("expectedVersion must be >= 0, got " + expectedVersion);
        }
        for (LogEntry entry : entries) {
            if (!entry.loadId().equals(loadId)) {
                throw new IllegalArgumentException("entry " + entry.entryId() + " belongs to load " + entry.loadId());
            }
        }
        for (OutboxMessage message : outbox) {
            if (!message.loadId().equals(loadId)) {
                throw new IllegalArgumentException("outbox row " + message.outboxId() + " belongs to load " + message.loadId());
            }
        }
        OffsetDateTime now = Pg.at(clock.instant());
        try {
            Pg.await(pool.withTransaction(conn -> appendEntries(conn, loadId, entries, expectedVersion, now)
                    .compose(v -> outbox.isEmpty() ? Future.succeededFuture() : insertOutbox(conn, loadId, outbox, now))));
        } catch (RuntimeException e) {
            if (Pg.violates(e, "event_log_pkey")) {
                throw new ConcurrencyConflictException(loadId, expectedVersion, e);
            }
            if (Pg.violates(e, "event_log_entry_key")) {
                throw new DuplicateEntryException(loadId, entries.stream().map(LogEntry::entryId).toList(), e);
            }
            if (Pg.violates(e, "outbox_pkey")) {
                throw new DuplicateActionKeyException(loadId, outbox.stream().map(OutboxMessage::outboxId).toList(), e);
            }
            throw e;
        }
        return expectedVersion + entries.size();
    }

    private Future<Void> appendEntries(SqlConnection conn, String loadId, List<LogEntry> entries, long expectedVersion,
                                       OffsetDateTime now) {
        int n = entries.size();
        String[] ids = new String[n];
        String[] kinds = new String[n];
        String[] types = new String[n];
        OffsetDateTime[] occurred = new OffsetDateTime[n];
        String[] correlations = new String[n];
        String[] causations = new String[n];
        String[] bodies = new String[n];
        for (int i = 0; i < n; i++) {
            LogEntry entry = entries.get(i);
            ids[i] = entry.entryId();
            kinds[i] = entry.kind();
            types[i] = entry.typeName();
            occurred[i] = Pg.at(entry.occurredAt());
            correlations[i] = entry.correlationId();
            causations[i] = entry.causationId();
            bodies[i] = LogCodec.encode(entry);
        }
        Tuple params = Tuple.tuple().addString(loadId).addLong(expectedVersion).addOffsetDateTime(now)
                .addArrayOfString(ids).addArrayOfString(kinds).addArrayOfString(types)
                .addArrayOfOffsetDateTime(occurred).addArrayOfString(correlations).addArrayOfString(causations)
                .addArrayOfString(bodies);
        return conn.preparedQuery(APPEND_ENTRIES).execute(params).compose(rows -> rows.rowCount() == n
                ? Future.succeededFuture()
                : Future.failedFuture(new ConcurrencyConflictException(loadId, expectedVersion, null)));
    }

    private Future<Void> insertOutbox(SqlConnection conn, String loadId, List<OutboxMessage> outbox, OffsetDateTime now) {
        int n = outbox.size();
        String[] ids = new String[n];
        String[] actionTypes = new String[n];
        String[] channels = new String[n];
        String[] payloads = new String[n];
        OffsetDateTime[] available = new OffsetDateTime[n];
        String[] correlations = new String[n];
        String[] causations = new String[n];
        for (int i = 0; i < n; i++) {
            OutboxMessage message = outbox.get(i);
            ids[i] = message.outboxId();
            actionTypes[i] = message.actionType();
            channels[i] = message.channel();
            payloads[i] = message.payload();
            available[i] = Pg.at(message.availableAt());
            correlations[i] = message.correlationId();
            causations[i] = message.causationId();
        }
        Tuple params = Tuple.tuple().addString(loadId).addOffsetDateTime(now)
                .addArrayOfString(ids).addArrayOfString(actionTypes).addArrayOfString(channels)
                .addArrayOfString(payloads).addArrayOfOffsetDateTime(available)
                .addArrayOfString(correlations).addArrayOfString(causations);
        return conn.preparedQuery(INSERT_OUTBOX).execute(params).mapEmpty();
    }
}
