package dev.loadflow.store.outbox;

import dev.loadflow.model.action.Channel;
import dev.loadflow.store.audit.AuditInsert;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * {@link Outbox} on PostgreSQL. Due rows are claimed in one statement
 * ({@code WITH due AS MATERIALIZED (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED) UPDATE ... RETURNING}),
 * so concurrent dispatchers never block each other nor take the same row. A claim moves
 * {@code available_at} to the end of the lease, which keeps "due" one indexed predicate and
 * makes a row whose claimant died due again exactly when its lease ends. Every later change
 * is conditional on the claim token: zero rows updated means the claim was lost.
 */
public class PgOutbox implements Outbox {

    protected static final String COLUMNS = """
            outbox_id, load_id, action_type, channel, payload::text AS payload, status, attempts, available_at,
            first_attempt_at, claim_token, claimed_until, last_failure, receipt, dispatched_at, dead_at,
            correlation_id, causation_id, created_at, traceparent, unsure_since, acknowledged_at""";

    /**
     * The due rows are picked in a MATERIALIZED CTE: as a plain {@code IN (SELECT ... LIMIT)}
     * the planner may run the locking subquery more than once (a nested loop), and a rerun can
     * pick other rows, so one claim could take more rows than its limit.
     */
    static final String CLAIM = """
            WITH due AS MATERIALIZED (
                SELECT outbox_id AS due_id FROM outbox
                WHERE status = 'pending' AND available_at <= $1
                ORDER BY available_at
                LIMIT $3
                FOR UPDATE SKIP LOCKED)
            UPDATE outbox SET claim_token = gen_random_uuid(), claimed_until = $2, available_at = $2,
                              attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, $1)
            FROM due WHERE outbox_id = due.due_id
            RETURNING\s""" + COLUMNS;

    /**
     * CLAIM per channel: $3 the channels, $4 how many of each. One index walk per channel
     * ({@code outbox_channel_due_idx}, V21), each locking at most its own number.
     */
    static final String CLAIM_PER_CHANNEL = """
            WITH due AS MATERIALIZED (
                SELECT d.outbox_id AS due_id
                FROM unnest($3::text[], $4::int[]) AS c(channel, wanted)
                CROSS JOIN LATERAL (
                    SELECT outbox_id FROM outbox
                    WHERE status = 'pending' AND channel = c.channel AND available_at <= $1
                    ORDER BY available_at
                    LIMIT c.wanted
                    FOR UPDATE SKIP LOCKED) d)
            UPDATE outbox SET claim_token = gen_random_uuid(), claimed_until = $2, available_at = $2,
                              attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, $1)
            FROM due WHERE outbox_id = due.due_id
            RETURNING\s""" + COLUMNS;

    static final String CLAIM_HELD = """
            SELECT 1 FROM outbox
            WHERE outbox_id = $1 AND claim_token = $2 AND status = 'pending' AND claimed_until > $3 AND load_id = $4""";

    protected static final String MARK_DISPATCHED = """
            UPDATE outbox SET status = 'dispatched', receipt = $3, dispatched_at = $4,
                              claim_token = NULL, claimed_until = NULL
            WHERE outbox_id = $1 AND claim_token = $2 AND status = 'pending' AND load_id = $5""";

    /**
     * MARK_DISPATCHED for many rows: $1 ids, $2 claim tokens, $3 receipts, $4 now. The
     * {@code = ANY($1)} keeps the outbox side to a primary key lookup of those ids whatever join
     * the planner picks. There is no {@code status = 'pending'}: a claim token is only ever set on
     * a pending row and every way out of pending clears it, and with that predicate the planner
     * walked every pending row through {@code outbox_due_idx} instead.
     */
    static final String MARK_DISPATCHED_ALL = """
            UPDATE outbox o SET status = 'dispatched', receipt = m.receipt, dispatched_at = $4,
                                claim_token = NULL, claimed_until = NULL
            FROM unnest($1::text[], $2::uuid[], $3::text[]) AS m(outbox_id, claim_token, receipt)
            WHERE o.outbox_id = ANY($1) AND o.outbox_id = m.outbox_id AND o.claim_token = m.claim_token
            RETURNING o.outbox_id""";

    /** $4 NULL parks the row. The failure is kept in outbox_failure in the same statement. */
    static final String MARK_FAILED = """
            WITH failed AS (
                UPDATE outbox SET status = CASE WHEN $4::timestamptz IS NULL THEN 'dead' ELSE 'pending' END,
                                  available_at = coalesce($4::timestamptz, available_at),
                                  dead_at = CASE WHEN $4::timestamptz IS NULL THEN $5::timestamptz END,
                                  last_failure = $3, claim_token = NULL, claimed_until = NULL
                WHERE outbox_id = $1 AND claim_token = $2 AND status = 'pending' AND load_id = $6
                RETURNING outbox_id, load_id, attempts)
            INSERT INTO outbox_failure (outbox_id, load_id, attempt, failed_at, failure, parked)
            SELECT outbox_id, load_id, attempts, $5::timestamptz, $3, $4::timestamptz IS NULL FROM failed""";

    /** MARK_FAILED for an attempt the provider accepted ($7 its receipt, kept) whose finish failed: still pending. */
    static final String MARK_ACCEPTED = """
            WITH failed AS (
                UPDATE outbox SET available_at = $4, last_failure = $3, receipt = $7, claim_token = NULL, claimed_until = NULL
                WHERE outbox_id = $1 AND claim_token = $2 AND status = 'pending' AND load_id = $6
                RETURNING outbox_id, load_id, attempts)
            INSERT INTO outbox_failure (outbox_id, load_id, attempt, failed_at, failure, parked)
            SELECT outbox_id, load_id, attempts, $5, $3, false FROM failed""";

    /** The SMS rows to one number since a time ({@code outbox_sms_to_idx}, V34). */
    static final String SMS_TO = "SELECT " + COLUMNS + " FROM outbox WHERE channel = 'sms' AND payload ->> 'to' = $1"
            + " AND created_at >= $2 ORDER BY created_at, outbox_id";

    /** MARK_FAILED for an attempt whose answer was lost: due again at $4, unsure since the first such attempt ($5 now). */
    static final String MARK_UNSURE = """
            WITH failed AS (
                UPDATE outbox SET available_at = $4, last_failure = $3, claim_token = NULL, claimed_until = NULL,
                                  unsure_since = coalesce(unsure_since, $5)
                WHERE outbox_id = $1 AND claim_token = $2 AND status = 'pending' AND load_id = $6
                RETURNING outbox_id, load_id, attempts)
            INSERT INTO outbox_failure (outbox_id, load_id, attempt, failed_at, failure, parked)
            SELECT outbox_id, load_id, attempts, $5, $3, false FROM failed""";

    /** Parks the row as ambiguous ($4 now), its failure kept as a parking attempt's. */
    static final String MARK_AMBIGUOUS = """
            WITH failed AS (
                UPDATE outbox SET status = 'ambiguous', ambiguous_at = $4, unsure_since = coalesce(unsure_since, $4),
                                  last_failure = $3, claim_token = NULL, claimed_until = NULL
                WHERE outbox_id = $1 AND claim_token = $2 AND status = 'pending' AND load_id = $5
                RETURNING outbox_id, load_id, attempts)
            INSERT INTO outbox_failure (outbox_id, load_id, attempt, failed_at, failure, parked)
            SELECT outbox_id, load_id, attempts, $4, $3, true FROM failed""";

    static final String AMBIGUOUS = "SELECT " + COLUMNS + " FROM outbox WHERE status = 'ambiguous'"
            + " ORDER BY ambiguous_at, outbox_id LIMIT $1";

    /** $1 outbox id, $2 now, $3 the receipt, then the audit row's: written only if the row was ambiguous. */
    static final String RESOLVE_DELIVERED = """
            WITH changed AS (
                UPDATE outbox SET status = 'dispatched', receipt = $3, dispatched_at = $2, ambiguous_at = NULL
                WHERE outbox_id = $1 AND status = 'ambiguous' RETURNING outbox_id),
            audit AS (""" + AuditInsert.fromCte("changed", "jsonb_build_object('resolved', 'delivered')", 4, true) + """
            )
            SELECT id FROM audit""";

    /** $1 outbox id, $2 now, then the audit row's: pending again with a fresh budget, sent as if never tried. */
    static final String RESOLVE_RESEND = """
            WITH changed AS (
                UPDATE outbox SET status = 'pending', attempts = 0, first_attempt_at = NULL, available_at = $2,
                                  ambiguous_at = NULL, unsure_since = NULL, claim_token = NULL, claimed_until = NULL
                WHERE outbox_id = $1 AND status = 'ambiguous' RETURNING outbox_id),
            audit AS (""" + AuditInsert.fromCte("changed", "jsonb_build_object('resolved', 'resend')", 3, true) + """
            )
            SELECT id FROM audit""";

    static final String DEFER = """
            UPDATE outbox SET attempts = attempts - 1, available_at = $3, claim_token = NULL, claimed_until = NULL
            WHERE outbox_id = $1 AND claim_token = $2 AND status = 'pending' AND load_id = $4""";

    static final String OLDEST_PENDING = """
            SELECT channel, min(created_at) AS oldest FROM outbox WHERE status = 'pending' GROUP BY channel""";

    /** By id and load, as every statement on one row: on Citus the load names the row's shard. */
    static final String FIND = "SELECT " + COLUMNS + " FROM outbox WHERE outbox_id = $1 AND load_id = $2";

    static final String FOR_LOAD = "SELECT " + COLUMNS + " FROM outbox WHERE load_id = $1 ORDER BY created_at, outbox_id";

    protected static final String FAILURES = """
            SELECT outbox_id, attempt, failed_at, failure, parked FROM outbox_failure
            WHERE outbox_id = $1 ORDER BY failed_at, attempt""";

    private static final String DEAD_FILTER = """
            status = 'dead'
              AND ($1::text IS NULL OR load_id = $1)
              AND ($2::text IS NULL OR action_type = $2)
              AND ($3::timestamptz IS NULL OR dead_at >= $3)
              AND ($4::timestamptz IS NULL OR dead_at < $4)""";

    static final String DEAD = "SELECT " + COLUMNS + " FROM outbox WHERE " + DEAD_FILTER
            + " ORDER BY dead_at DESC, outbox_id LIMIT $5 OFFSET $6";

    static final String COUNT_DEAD = "SELECT count(*) AS matched FROM outbox WHERE " + DEAD_FILTER;

    private static final String REPLAY_SET = """
            UPDATE outbox SET status = 'pending', attempts = 0, first_attempt_at = NULL, available_at = $%d,
                              dead_at = NULL, acknowledged_at = NULL, claim_token = NULL, claimed_until = NULL
            """;

    /** The alerts of the rows in the CTE {@code changed} ($2 now): an operator acted on their rows. */
    private static final String ACKNOWLEDGE_ALERTS = """
            alerts AS (
                UPDATE ops_alert a SET acknowledged_at = $2 FROM changed c
                WHERE a.outbox_id = c.outbox_id AND a.acknowledged_at IS NULL RETURNING 1),
            """;

    /** $1 outbox id, $2 now, then the audit row's parameters: written only if the row was dead. */
    static final String REPLAY_ONE = "WITH changed AS (" + REPLAY_SET.formatted(2)
            + "WHERE outbox_id = $1 AND status = 'dead' RETURNING outbox_id),\n" + ACKNOWLEDGE_ALERTS
            + "audit AS (" + AuditInsert.fromCte("changed", "jsonb_build_object('replayed', count(*))", 3, true) + ")\n"
            + "SELECT id FROM audit";

    /**
     * $1 outbox id, $2 now, then the audit row's parameters: a dead row (and its alerts) marked
     * handled, written only if it was dead and not yet acknowledged. It stays dead, and listed.
     */
    static final String ACKNOWLEDGE = """
            WITH changed AS (
                UPDATE outbox SET acknowledged_at = $2
                WHERE outbox_id = $1 AND status = 'dead' AND acknowledged_at IS NULL RETURNING outbox_id),
            """ + ACKNOWLEDGE_ALERTS + "audit AS (" + AuditInsert.fromCte("changed",
                    "jsonb_build_object('acknowledged', count(*), 'alerts', (SELECT count(*) FROM alerts))", 3, true)
            + ")\nSELECT id FROM audit";

    /**
     * $1 the outbox ids, $2 now, $3 what the caller left out as stale, then the audit row's
     * parameters: the rows among the ids still dead are replayed, and the row written whatever
     * that was.
     */
    static final String REPLAY_IDS = "WITH changed AS (" + REPLAY_SET.formatted(2)
            + "WHERE outbox_id = ANY($1::text[]) AND status = 'dead' RETURNING outbox_id),\n" + ACKNOWLEDGE_ALERTS
            + "audit AS (" + AuditInsert.fromCte("changed",
                    "jsonb_build_object('replayed', count(*), 'stale', $3::int)", 4, false) + ")\n"
            + "SELECT (SELECT count(*) FROM changed) AS replayed, (SELECT id FROM audit) AS audit_id";

    static final String PRUNE_DISPATCHED = """
            DELETE FROM outbox WHERE outbox_id IN (
                SELECT outbox_id FROM outbox WHERE status = 'dispatched' AND dispatched_at < $1 LIMIT $2)""";

    protected final Pool pool;
    protected final Clock clock;
    protected final Duration lease;

    /** @param lease how long a claim holds a row (90 s by default: well above a send's timeout) */
    public PgOutbox(Pool pool, Clock clock, Duration lease) {
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("the lease must be positive, got " + lease);
        }
        this.pool = pool;
        this.clock = clock;
        this.lease = lease;
    }

    /**
     * A row's channel, by its name: one this process has no {@code ActionKind} for (added only to
     * the workers, or by a later release) still reads, so the rows it cannot send are listed and
     * aged, never a failed read.
     */
    private static Channel channelOf(Row row) {
        return Channel.register(row.getString("channel"));
    }

    /** The load an outbox id names ({@link dev.loadflow.model.id.ActionKey}: its first segment); none if it names none. */
    public static String loadOf(String outboxId) {
        int slash = outboxId.indexOf('/');
        return slash <= 0 ? "" : outboxId.substring(0, slash);
    }

    @Override
    public List<OutboxRow> pending(int limit, Instant now) {
        List<OutboxRow> claimed = claim(null, new Integer[] {limit}, now);
        claimed.sort(Comparator.comparing(OutboxRow::createdAt).thenComparing(OutboxRow::outboxId));
        return claimed;
    }

    @Override
    public List<OutboxRow> pending(Map<Channel, Integer> wanted, Instant now) {
        List<Map.Entry<Channel, Integer>> asked = wanted.entrySet().stream().filter(e -> e.getValue() > 0).toList();
        if (asked.isEmpty()) {
            return List.of();
        }
        String[] channels = asked.stream().map(e -> e.getKey().wire()).toArray(String[]::new);
        Integer[] numbers = asked.stream().map(Map.Entry::getValue).toArray(Integer[]::new);
        List<OutboxRow> claimed = claim(channels, numbers, now);
        claimed.sort(Comparator.comparing(OutboxRow::createdAt).thenComparing(OutboxRow::outboxId));
        return claimed;
    }

    /**
     * Claims the oldest due rows in one statement: {@code wanted[0]} of any channel
     * ({@code channels} null, {@link #CLAIM}), or of each channel its number ({@link #CLAIM_PER_CHANNEL}).
     */
    protected List<OutboxRow> claim(String[] channels, Integer[] wanted, Instant now) {
        return map(Pg.await(channels == null
                ? pool.preparedQuery(CLAIM).execute(Tuple.of(Pg.at(now), Pg.at(now.plus(lease)), wanted[0]))
                : pool.preparedQuery(CLAIM_PER_CHANNEL).execute(Tuple.of(Pg.at(now), Pg.at(now.plus(lease)), channels, wanted))));
    }

    @Override
    public boolean isClaimHeld(String outboxId, UUID claimToken, Instant now) {
        return Pg.await(pool.preparedQuery(CLAIM_HELD).execute(Tuple.of(outboxId, claimToken, Pg.at(now), loadOf(outboxId)))).size() == 1;
    }

    @Override
    public void markDispatched(String outboxId, UUID claimToken, String receipt) {
        var result = Pg.await(pool.preparedQuery(MARK_DISPATCHED)
                .execute(Tuple.of(outboxId, claimToken, receipt, Pg.at(clock.instant()), loadOf(outboxId))));
        if (result.rowCount() != 1) {
            throw new StaleClaimException(outboxId);
        }
    }

    @Override
    public java.util.Set<String> markDispatchedAll(List<Dispatched> rows) {
        java.util.Set<String> stale = new java.util.HashSet<>();
        rows.forEach(row -> stale.add(row.outboxId()));
        if (rows.isEmpty()) {
            return stale;
        }
        return markDispatched(rows, stale);
    }

    /** Marks {@code rows} dispatched in one statement ({@link #MARK_DISPATCHED_ALL}), taking those whose claim held from {@code stale}. */
    protected java.util.Set<String> markDispatched(List<Dispatched> rows, java.util.Set<String> stale) {
        Tuple params = Tuple.tuple()
                .addArrayOfString(rows.stream().map(Dispatched::outboxId).toArray(String[]::new))
                .addArrayOfUUID(rows.stream().map(Dispatched::claimToken).toArray(UUID[]::new))
                .addArrayOfString(rows.stream().map(Dispatched::receipt).toArray(String[]::new))
                .addOffsetDateTime(Pg.at(clock.instant()));
        Pg.await(pool.preparedQuery(MARK_DISPATCHED_ALL).execute(params)).forEach(row -> stale.remove(row.getString("outbox_id")));
        return stale;
    }

    @Override
    public void markFailed(String outboxId, UUID claimToken, String failure, Instant retryAt) {
        var result = Pg.await(pool.preparedQuery(MARK_FAILED)
                .execute(Tuple.of(outboxId, claimToken, failure, Pg.at(retryAt), Pg.at(clock.instant()), loadOf(outboxId))));
        if (result.rowCount() != 1) {
            throw new StaleClaimException(outboxId);
        }
    }

    @Override
    public void markAccepted(String outboxId, UUID claimToken, String receipt, String failure, Instant retryAt) {
        Tuple params = Tuple.of(outboxId, claimToken, failure, Pg.at(retryAt), Pg.at(clock.instant()), loadOf(outboxId))
                .addString(receipt);
        if (Pg.await(pool.preparedQuery(MARK_ACCEPTED).execute(params)).rowCount() != 1) {
            throw new StaleClaimException(outboxId);
        }
    }

    @Override
    public List<OutboxRow> smsTo(String to, Instant since) {
        return map(Pg.await(pool.preparedQuery(SMS_TO).execute(Tuple.of(to, Pg.at(since)))));
    }

    @Override
    public void markUnsure(String outboxId, UUID claimToken, String failure, Instant retryAt) {
        if (Pg.await(pool.preparedQuery(MARK_UNSURE).execute(Tuple.of(outboxId, claimToken, failure, Pg.at(retryAt),
                Pg.at(clock.instant()), loadOf(outboxId)))).rowCount() != 1) {
            throw new StaleClaimException(outboxId);
        }
    }

    @Override
    public void markAmbiguous(String outboxId, UUID claimToken, String failure) {
        if (Pg.await(pool.preparedQuery(MARK_AMBIGUOUS).execute(Tuple.of(outboxId, claimToken, failure,
                Pg.at(clock.instant()), loadOf(outboxId)))).rowCount() != 1) {
            throw new StaleClaimException(outboxId);
        }
    }

    @Override
    public List<OutboxRow> ambiguous(int limit) {
        return map(Pg.await(pool.preparedQuery(AMBIGUOUS).execute(Tuple.of(limit))));
    }

    @Override
    public Optional<Long> resolve(String outboxId, Resolution as, String receipt, Instant now, AuditRecord audit) {
        Tuple params = switch (as) {
            case DELIVERED -> Tuple.of(outboxId, Pg.at(now), receipt);
            case RESEND -> Tuple.of(outboxId, Pg.at(now));
        };
        RowSet<Row> rows = Pg.await(pool.preparedQuery(as == Resolution.DELIVERED ? RESOLVE_DELIVERED : RESOLVE_RESEND)
                .execute(AuditInsert.bind(params, audit, now)));
        return rows.size() == 0 ? Optional.empty() : Optional.of(rows.iterator().next().getLong("id"));
    }

    @Override
    public void defer(String outboxId, UUID claimToken, Instant until) {
        if (Pg.await(pool.preparedQuery(DEFER).execute(Tuple.of(outboxId, claimToken, Pg.at(until), loadOf(outboxId)))).rowCount() != 1) {
            throw new StaleClaimException(outboxId);
        }
    }

    @Override
    public Map<Channel, Instant> oldestPendingByChannel() {
        Map<Channel, Instant> oldest = new HashMap<>();
        for (Row row : Pg.await(pool.preparedQuery(OLDEST_PENDING).execute())) {
            oldest.put(channelOf(row), Pg.instant(row, "oldest"));
        }
        return oldest;
    }

    @Override
    public Optional<OutboxRow> find(String outboxId) {
        return map(Pg.await(pool.preparedQuery(FIND).execute(Tuple.of(outboxId, loadOf(outboxId))))).stream().findFirst();
    }

    @Override
    public List<OutboxRow> forLoad(String loadId) {
        return map(Pg.await(pool.preparedQuery(FOR_LOAD).execute(Tuple.of(loadId))));
    }

    @Override
    public List<OutboxFailure> failures(String outboxId) {
        List<OutboxFailure> failures = new ArrayList<>();
        for (Row row : failureRows(outboxId)) {
            failures.add(new OutboxFailure(row.getString("outbox_id"), row.getInteger("attempt"),
                    Pg.instant(row, "failed_at"), row.getString("failure"), row.getBoolean("parked")));
        }
        return failures;
    }

    /** The row's failures ({@link #FAILURES}, by the row's id alone: failures written before V30 name no load). */
    protected RowSet<Row> failureRows(String outboxId) {
        return Pg.await(pool.preparedQuery(FAILURES).execute(Tuple.of(outboxId)));
    }

    @Override
    public List<OutboxRow> dead(DeadRowQuery query) {
        return map(Pg.await(pool.preparedQuery(DEAD).execute(filter(query).addInteger(query.limit())
                .addInteger(query.offset()))));
    }

    @Override
    public long countDead(DeadRowQuery query) {
        return Pg.await(pool.preparedQuery(COUNT_DEAD).execute(filter(query))).iterator().next().getLong("matched");
    }

    private static Tuple filter(DeadRowQuery query) {
        return Tuple.of(query.loadId(), query.actionType(), Pg.at(query.since()), Pg.at(query.until()));
    }

    @Override
    public Optional<Long> replay(String outboxId, Instant now, AuditRecord audit) {
        RowSet<Row> rows = Pg.await(pool.preparedQuery(REPLAY_ONE).execute(
                AuditInsert.bind(Tuple.of(outboxId, Pg.at(now)), audit, now)));
        return rows.size() == 0 ? Optional.empty() : Optional.of(rows.iterator().next().getLong("id"));
    }

    @Override
    public Optional<Long> acknowledge(String outboxId, Instant now, AuditRecord audit) {
        RowSet<Row> rows = Pg.await(pool.preparedQuery(ACKNOWLEDGE).execute(
                AuditInsert.bind(Tuple.of(outboxId, Pg.at(now)), audit, now)));
        return rows.size() == 0 ? Optional.empty() : Optional.of(rows.iterator().next().getLong("id"));
    }

    @Override
    public Replayed replay(List<String> outboxIds, int stale, Instant now, AuditRecord audit) {
        Row row = Pg.await(pool.preparedQuery(REPLAY_IDS).execute(AuditInsert.bind(Tuple.tuple()
                .addArrayOfString(outboxIds.toArray(String[]::new)).addOffsetDateTime(Pg.at(now)).addInteger(stale),
                audit, now))).iterator().next();
        return new Replayed(row.getLong("replayed").intValue(), row.getLong("audit_id"));
    }

    @Override
    public int pruneDispatched(Instant before, int batchSize) {
        return Pg.await(pool.preparedQuery(PRUNE_DISPATCHED).execute(Tuple.of(Pg.at(before), batchSize))).rowCount();
    }

    protected static List<OutboxRow> map(RowSet<Row> rows) {
        List<OutboxRow> result = new ArrayList<>(rows.size());
        for (Row row : rows) {
            result.add(new OutboxRow(row.getString("outbox_id"), row.getString("load_id"), row.getString("action_type"),
                    channelOf(row), row.getString("payload"), OutboxStatus.fromWire(row.getString("status")),
                    row.getInteger("attempts"), Pg.instant(row, "available_at"), Pg.instant(row, "first_attempt_at"),
                    row.getUUID("claim_token"), Pg.instant(row, "claimed_until"), row.getString("last_failure"),
                    row.getString("receipt"), Pg.instant(row, "dispatched_at"), Pg.instant(row, "dead_at"),
                    row.getString("correlation_id"), row.getString("causation_id"), Pg.instant(row, "created_at"),
                    row.getString("traceparent"), Pg.instant(row, "unsure_since"), Pg.instant(row, "acknowledged_at")));
        }
        return result;
    }
}
