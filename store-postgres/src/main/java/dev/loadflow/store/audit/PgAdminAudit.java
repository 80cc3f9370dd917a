package dev.loadflow.store.audit;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** {@link AdminAudit} on PostgreSQL. */
public final class PgAdminAudit implements AdminAudit {

    static final String LIST = """
            SELECT id, at, principal, service, action, target, params::text AS params, result::text AS result
            FROM admin_audit
            WHERE ($1::timestamptz IS NULL OR at >= $1) AND ($2::text IS NULL OR principal = $2)
            ORDER BY at DESC, id DESC OFFSET $3 LIMIT $4""";

    private final Pool pool;

    public PgAdminAudit(Pool pool) {
        this.pool = pool;
    }

    @Override
    public long record(AuditRecord audit, String resultJson, Instant at) {
        return Pg.await(pool.preparedQuery(AuditInsert.INSERT).execute(AuditInsert.bind(Tuple.tuple(), audit, at)
                .addString(resultJson))).iterator().next().getLong("id");
    }

    @Override
    public List<AuditEntry> list(AuditQuery query) {
        List<AuditEntry> entries = new ArrayList<>();
        for (Row row : Pg.await(pool.preparedQuery(LIST).execute(Tuple.of(Pg.at(query.since()), query.principal(),
                query.offset(), query.limit())))) {
            entries.add(new AuditEntry(row.getLong("id"), Pg.instant(row, "at"), row.getString("principal"),
                    row.getString("service"), row.getString("action"), row.getString("target"),
                    row.getString("params"), row.getString("result")));
        }
        return entries;
    }
}
