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

import static dev.loadflow.store.outbox.OutboxStatements.ACKNOWLEDGE;
import static dev.loadflow.store.outbox.OutboxStatements.AMBIGUOUS;
import static dev.loadflow.store.outbox.OutboxStatements.CLAIM;
import static dev.loadflow.store.outbox.OutboxStatements.CLAIM_HELD;
import static dev.loadflow.store.outbox.OutboxStatements.CLAIM_PER_CHANNEL;
import static dev.loadflow.store.outbox.OutboxStatements.COUNT_DEAD;
import static dev.loadflow.store.outbox.OutboxStatements.DEAD;
import static dev.loadflow.store.outbox.OutboxStatements.DEFER;
import static dev.loadflow.store.outbox.OutboxStatements.FIND;
import static dev.loadflow.store.outbox.OutboxStatements.FOR_LOAD;
import static dev.loadflow.store.outbox.OutboxStatements.MARK_ACCEPTED;
import static dev.loadflow.store.outbox.OutboxStatements.MARK_AMBIGUOUS;
import static dev.loadflow.store.outbox.OutboxStatements.MARK_DISPATCHED_ALL;
import static dev.loadflow.store.outbox.OutboxStatements.MARK_FAILED;
import static dev.loadflow.store.outbox.OutboxStatements.MARK_UNSURE;
import static dev.loadflow.store.outbox.OutboxStatements.OLDEST_PENDING;
import static dev.loadflow.store.outbox.OutboxStatements.PRUNE_DISPATCHED;
import static dev.loadflow.store.outbox.OutboxStatements.REPLAY_IDS;
import static dev.loadflow.store.outbox.OutboxStatements.REPLAY_ONE;
import static dev.loadflow.store.outbox.OutboxStatements.RESOLVE_DELIVERED;
import static dev.loadflow.store.outbox.OutboxStatements.RESOLVE_RESEND;
import static dev.loadflow.store.outbox.OutboxStatements.SMS_TO;

/**
 * {@link Outbox} on PostgreSQL. Due rows are claimed in one statement
 * ({@code WITH due AS MATERIALIZED (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED) UPDATE ... RETURNING}),
 * so concurrent dispatchers never block each other nor take the same row. A claim moves
 * {@code available_at} to the end of the lease, which keeps "due" one indexed predicate and
 * makes a row whose claimant died due again exactly when its lease ends. Every later change
 * is conditional on the claim token: zero rows updated means the claim was lost.
 */
public class PgOutbox implements Outbox {

    /** The columns of a row as {@link #map} reads them. */
    protected static final String COLUMNS = OutboxStatements.COLUMNS;

    /** One row marked dispatched: $1 id, $2 claim token, $3 receipt, $4 now, $5 its load. */
    protected static final String MARK_DISPATCHED = OutboxStatements.MARK_DISPATCHED;

    /** A row's failures, by its id ($1). */
    protected static final String FAILURES = OutboxStatements.FAILURES;

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
     * ({@code channels} null, {@link OutboxStatements#CLAIM}), or of each channel its number ({@link OutboxStatements#CLAIM_PER_CHANNEL}).
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

    /** Marks {@code rows} dispatched in one statement ({@link OutboxStatements#MARK_DISPATCHED_ALL}), taking those whose claim held from {@code stale}. */
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
