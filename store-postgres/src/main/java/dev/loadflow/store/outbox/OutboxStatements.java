package dev.loadflow.store.outbox;

import dev.loadflow.store.audit.AuditInsert;

/**
 * The statements of {@link PgOutbox}, each written once. Every statement on one row names the
 * row's load too ({@code load_id}), which its id carries: where the outbox is sharded by load, that
 * routes the statement to one shard; on one PostgreSQL it is one more condition on the row found.
 *
 * <p>A template ({@code *_TEMPLATE}) is a statement with its table left open ({@code %1$s}), and
 * what it returns where it returns rows ({@code %2$s}): {@link PgOutbox} runs it on {@code outbox};
 * a backend that shards the outbox runs the same text on each shard.
 */
public final class OutboxStatements {

    private OutboxStatements() {
    }

    public static final String COLUMNS = """
            outbox_id, load_id, action_type, channel, payload::text AS payload, status, attempts, available_at,
            first_attempt_at, claim_token, claimed_until, last_failure, receipt, dispatched_at, dead_at,
            correlation_id, causation_id, created_at, traceparent, unsure_since, acknowledged_at""";

    /**
     * The due rows are picked in a MATERIALIZED CTE: as a plain {@code IN (SELECT ... LIMIT)}
     * the planner may run the locking subquery more than once (a nested loop), and a rerun can
     * pick other rows, so one claim could take more rows than its limit.
     */
    public static final String CLAIM_TEMPLATE = """
            WITH due AS MATERIALIZED (
                SELECT load_id AS due_load, outbox_id AS due_id FROM %1$s
                WHERE status = 'pending' AND available_at <= $1
                ORDER BY available_at
                LIMIT $3
                FOR UPDATE SKIP LOCKED)
            UPDATE %1$s o SET claim_token = gen_random_uuid(), claimed_until = $2, available_at = $2,
                              attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, $1)
            FROM due WHERE o.load_id = due.due_load AND o.outbox_id = due.due_id
            RETURNING %2$s""";

    static final String CLAIM = CLAIM_TEMPLATE.formatted("outbox", COLUMNS);

    /**
     * CLAIM per channel: $3 the channels, $4 how many of each. One index walk per channel
     * ({@code outbox_channel_due_idx}, V21), each locking at most its own number.
     */
    public static final String CLAIM_PER_CHANNEL_TEMPLATE = """
            WITH due AS MATERIALIZED (
                SELECT d.load_id AS due_load, d.outbox_id AS due_id
                FROM unnest($3::text[], $4::int[]) AS c(channel, wanted)
                CROSS JOIN LATERAL (
                    SELECT load_id, outbox_id FROM %1$s
                    WHERE status = 'pending' AND channel = c.channel AND available_at <= $1
                    ORDER BY available_at
                    LIMIT greatest(c.wanted, 0)
                    FOR UPDATE SKIP LOCKED) d)
            UPDATE %1$s o SET claim_token = gen_random_uuid(), claimed_until = $2, available_at = $2,
                              attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, $1)
            FROM due WHERE o.load_id = due.due_load AND o.outbox_id = due.due_id
            RETURNING %2$s""";

    static final String CLAIM_PER_CHANNEL = CLAIM_PER_CHANNEL_TEMPLATE.formatted("outbox", COLUMNS);

    static final String CLAIM_HELD = """
            SELECT 1 FROM outbox
            WHERE outbox_id = $1 AND claim_token = $2 AND status = 'pending' AND claimed_until > $3 AND load_id = $4""";

    /** One row marked dispatched: $1 id, $2 claim token, $3 receipt, $4 now, $5 its load. */
    public static final String MARK_DISPATCHED_TEMPLATE = """
            UPDATE %1$s SET status = 'dispatched', receipt = $3, dispatched_at = $4,
                              claim_token = NULL, claimed_until = NULL
            WHERE outbox_id = $1 AND claim_token = $2 AND status = 'pending' AND load_id = $5""";

    static final String MARK_DISPATCHED = MARK_DISPATCHED_TEMPLATE.formatted("outbox");

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

    /**
     * A row's failures, by its id ($1); %1$s a further condition, ending in AND (by the row's load
     * too, $2, where failures are sharded by load: failures written before V30 name none).
     */
    public static final String FAILURES_TEMPLATE = """
            SELECT outbox_id, attempt, failed_at, failure, parked FROM outbox_failure
            WHERE %1$soutbox_id = $1 ORDER BY failed_at, attempt""";

    static final String FAILURES = FAILURES_TEMPLATE.formatted("");

    static final String DEAD_FILTER = """
            status = 'dead'
              AND ($1::text IS NULL OR load_id = $1)
              AND ($2::text IS NULL OR action_type = $2)
              AND ($3::timestamptz IS NULL OR dead_at >= $3)
              AND ($4::timestamptz IS NULL OR dead_at < $4)""";

    static final String DEAD = "SELECT " + COLUMNS + " FROM outbox WHERE " + DEAD_FILTER
            + " ORDER BY dead_at DESC, outbox_id LIMIT $5 OFFSET $6";

    static final String COUNT_DEAD = "SELECT count(*) AS matched FROM outbox WHERE " + DEAD_FILTER;

    static final String REPLAY_SET = """
            UPDATE outbox SET status = 'pending', attempts = 0, first_attempt_at = NULL, available_at = $%d,
                              dead_at = NULL, acknowledged_at = NULL, claim_token = NULL, claimed_until = NULL
            """;

    /** The alerts of the rows in the CTE {@code changed} ($2 now): an operator acted on their rows. */
    static final String ACKNOWLEDGE_ALERTS = """
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
}
