package dev.loadflow.store.outbox;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Tuple;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * The outbox's part of a statement that writes other tables too: {@code EventStore.append}
 * inserts a decision's rows in the statement that appends its log entries, so both commit or
 * neither does. The columns of {@code outbox} are known here only; the caller names the CTE
 * that holds the loads whose rows may go in, and binds the rows where its own parameters end.
 */
public final class OutboxInsert {

    /** How many parameters {@link #bind} adds. */
    public static final int PARAMETERS = 9;

    private OutboxInsert() {
    }

    /**
     * An {@code INSERT INTO outbox ... RETURNING 1} for a CTE: rows whose load is in
     * {@code SELECT load_id FROM {loadsCte}}, created at parameter {@code $createdAt}, the rows'
     * arrays from parameter {@code $first} on.
     */
    public static String sql(String loadsCte, int createdAt, int first) {
        return into("outbox", loadsCte, createdAt, first);
    }

    /** {@link #sql}, into {@code table}: {@code outbox}, or a template's placeholder for it. */
    public static String into(String table, String loadsCte, int createdAt, int first) {
        return """
                INSERT INTO %12$s (outbox_id, load_id, action_type, channel, payload, status, attempts,
                                    available_at, correlation_id, causation_id, traceparent, created_at)
                SELECT o.outbox_id, o.load_id, o.action_type, o.channel, o.payload::jsonb, 'pending', 0,
                       o.available_at, o.correlation_id, o.causation_id, o.traceparent, $%2$d
                FROM unnest($%3$d::text[], $%4$d::text[], $%5$d::text[], $%6$d::text[], $%7$d::text[],
                            $%8$d::timestamptz[], $%9$d::text[], $%10$d::text[], $%11$d::text[])
                     AS o(load_id, outbox_id, action_type, channel, payload, available_at, correlation_id, causation_id,
                          traceparent)
                WHERE o.load_id IN (SELECT load_id FROM %1$s)
                RETURNING 1""".formatted(loadsCte, createdAt, first, first + 1, first + 2, first + 3, first + 4,
                first + 5, first + 6, first + 7, first + 8, table);
    }

    /** Adds the {@link #PARAMETERS} arrays of {@code rows} to {@code params}, in the order {@link #sql} reads them. */
    public static Tuple bind(Tuple params, List<OutboxMessage> rows) {
        int m = rows.size();
        String[] loads = new String[m];
        String[] ids = new String[m];
        String[] types = new String[m];
        String[] channels = new String[m];
        String[] payloads = new String[m];
        OffsetDateTime[] available = new OffsetDateTime[m];
        String[] correlations = new String[m];
        String[] causations = new String[m];
        String[] traces = new String[m];
        for (int j = 0; j < m; j++) {
            OutboxMessage row = rows.get(j);
            loads[j] = row.loadId();
            ids[j] = row.outboxId();
            types[j] = row.actionType();
            channels[j] = row.channel().wire();
            payloads[j] = row.payload();
            available[j] = Pg.at(row.availableAt());
            correlations[j] = row.correlationId();
            causations[j] = row.causationId();
            traces[j] = row.traceparent();
        }
        return params.addArrayOfString(loads).addArrayOfString(ids).addArrayOfString(types)
                .addArrayOfString(channels).addArrayOfString(payloads).addArrayOfOffsetDateTime(available)
                .addArrayOfString(correlations).addArrayOfString(causations).addArrayOfString(traces);
    }
}
