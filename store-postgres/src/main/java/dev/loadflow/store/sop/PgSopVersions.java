package dev.loadflow.store.sop;

import dev.loadflow.model.json.SopRulesCodec;
import dev.loadflow.model.policy.SopRules;
import dev.loadflow.store.audit.AuditInsert;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.pg.Wakeups;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@link SopVersions} on PostgreSQL ({@code sop_version}, V39). A version is the client's newest
 * plus one, written with its audit row in one statement; two changes at once meet on the primary
 * key, and the second is refused. After a version commits, the workers are told
 * ({@code NOTIFY loadflow_sop}) and read the SOPs again.
 */
public final class PgSopVersions implements SopVersions {

    private static final String COLUMNS = "client_id, version, rules::text AS rules, made_by, made_at, reason";

    /** $1 client, $2 rules, $3 made by, $4 made at, $5 reason; from $6 on the audit row's. */
    static final String ADD = """
            WITH added AS (
                INSERT INTO sop_version (client_id, version, rules, made_by, made_at, reason)
                SELECT $1, coalesce(max(version), 0) + 1, $2::text::jsonb, $3, $4, $5 FROM sop_version WHERE client_id = $1
                RETURNING client_id, version, rules, made_by, made_at, reason),
            audit AS (
            """ + AuditInsert.fromCte("added", "jsonb_build_object('version', max(version))", 6, false) + """
            )
            SELECT added.client_id, added.version, added.rules::text AS rules, added.made_by, added.made_at, added.reason,
                   audit.id AS audit_id
            FROM added, audit""";

    static final String CURRENT = "SELECT " + COLUMNS + " FROM sop_version WHERE client_id = $1 ORDER BY version DESC LIMIT 1";

    static final String HISTORY = "SELECT " + COLUMNS + " FROM sop_version WHERE client_id = $1 ORDER BY version DESC";

    static final String CURRENTS = "SELECT DISTINCT ON (client_id) " + COLUMNS
            + " FROM sop_version ORDER BY client_id, version DESC";

    private final Pool pool;
    private final Wakeups wakeups;

    /** @param wakeups told after a version commits (the workers' {@code loadflow_sop}) */
    public PgSopVersions(Pool pool, Wakeups wakeups) {
        this.pool = pool;
        this.wakeups = wakeups;
    }

    @Override
    public Added add(String clientId, SopRules rules, String reason, AuditRecord audit, Instant at) {
        return addAll(List.of(new Change(clientId, rules, reason, audit)), at).getFirst();
    }

    @Override
    public List<Added> addAll(List<Change> changes, Instant at) {
        List<Added> added = new ArrayList<>();
        try {
            Pg.await(pool.withTransaction(conn -> {
                Future<Void> chain = Future.succeededFuture();
                for (Change change : changes) {
                    Tuple params = Tuple.of(change.clientId(), SopRulesCodec.encode(change.rules()), change.audit().principal(),
                            Pg.at(at), change.reason());
                    chain = chain.compose(done -> conn.preparedQuery(ADD).execute(AuditInsert.bind(params, change.audit(), at))
                            .map(rows -> {
                                Row row = rows.iterator().next();
                                added.add(new Added(version(row), row.getLong("audit_id")));
                                return null;
                            }));
                }
                return chain;
            }));
        } catch (RuntimeException e) {
            if (Pg.violates(e, "sop_version_pkey")) {
                throw new SopChangedMeanwhileException(changes.size() == 1 ? changes.getFirst().clientId()
                        : String.join(", ", changes.stream().map(Change::clientId).toList()), e);
            }
            throw e;
        }
        if (!added.isEmpty()) {
            wakeups.wake(PgNotifications.SOP);
        }
        return List.copyOf(added);
    }

    @Override
    public Optional<SopVersion> current(String clientId) {
        return versions(CURRENT, Tuple.of(clientId)).stream().findFirst();
    }

    @Override
    public List<SopVersion> history(String clientId) {
        return versions(HISTORY, Tuple.of(clientId));
    }

    @Override
    public List<SopVersion> currents() {
        return versions(CURRENTS, Tuple.tuple());
    }

    private List<SopVersion> versions(String sql, Tuple params) {
        List<SopVersion> versions = new ArrayList<>();
        Pg.await(pool.preparedQuery(sql).execute(params)).forEach(row -> versions.add(version(row)));
        return versions;
    }

    private static SopVersion version(Row row) {
        return new SopVersion(row.getString("client_id"), row.getInteger("version"), SopRulesCodec.read(row.getString("rules")),
                row.getString("made_by"), Pg.instant(row, "made_at"), row.getString("reason"));
    }
}
