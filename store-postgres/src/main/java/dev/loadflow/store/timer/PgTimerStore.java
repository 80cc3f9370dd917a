package dev.loadflow.store.timer;

import dev.loadflow.model.id.TimerId;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.pg.Wakeups;
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
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@link TimerStore} on PostgreSQL. Due timers are claimed in one statement with
 * {@code FOR UPDATE SKIP LOCKED} and a lease ({@code claimed_until}); schedule and cancel are
 * upserts, so each is idempotent and a cancel that overtakes its schedule still wins.
 */
public class PgTimerStore implements TimerStore {

    protected static final String COLUMNS =
            "timer_id, fire_at, status, fired_at, cancelled_at, created_at, correlation_id, traceparent";

    /**
     * One timer scheduled unless it exists. A template, as the others here: {@code %1$s} the table
     * (or a shard of it), {@code %2$s} its key ({@code timer_id}; {@code load_id, timer_id} where
     * timers are sharded by load), {@code %2$s} in a claim what it returns.
     */
    public static final String SCHEDULE_TEMPLATE = """
            INSERT INTO %1$s (timer_id, load_id, ask_id, attempt, fire_at, status, created_at, correlation_id,
                              traceparent)
            VALUES ($1, $2, $3, $4, $5, 'scheduled', $6, $7, $8)
            ON CONFLICT (%2$s) DO NOTHING""";

    protected static final String SCHEDULE = SCHEDULE_TEMPLATE.formatted("timers", "timer_id");

    /** A cancel of an unknown timer leaves a tombstone, so its late schedule does nothing. */
    public static final String CANCEL_TEMPLATE = """
            INSERT INTO %1$s AS t (timer_id, load_id, ask_id, attempt, fire_at, status, cancelled_at, created_at)
            VALUES ($1, $2, $3, $4, $5, 'cancelled', $5, $5)
            ON CONFLICT (%2$s) DO UPDATE SET status = 'cancelled', cancelled_at = excluded.cancelled_at, claimed_until = NULL
                WHERE t.status = 'scheduled'""";

    protected static final String CANCEL = CANCEL_TEMPLATE.formatted("timers", "timer_id");

    /**
     * SCHEDULE for many: rows inserted in timer id order, so two of these never wait on each
     * other's keys in opposite orders. Returns the ids created.
     */
    static final String SCHEDULE_ALL = """
            INSERT INTO timers (timer_id, load_id, ask_id, attempt, fire_at, status, created_at, correlation_id,
                                traceparent)
            SELECT t.timer_id, t.load_id, t.ask_id, t.attempt, t.fire_at, 'scheduled', $7, t.correlation_id, t.traceparent
            FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::timestamptz[], $6::text[], $8::text[])
                 AS t(timer_id, load_id, ask_id, attempt, fire_at, correlation_id, traceparent)
            ORDER BY t.timer_id
            ON CONFLICT (timer_id) DO NOTHING
            RETURNING timer_id""";

    /** CANCEL for many distinct ids, in timer id order. Returns the ids cancelled (or tombstoned). */
    static final String CANCEL_ALL = """
            INSERT INTO timers (timer_id, load_id, ask_id, attempt, fire_at, status, cancelled_at, created_at)
            SELECT c.timer_id, c.load_id, c.ask_id, c.attempt, $5::timestamptz, 'cancelled', $5::timestamptz, $5::timestamptz
            FROM unnest($1::text[], $2::text[], $3::text[], $4::int[]) AS c(timer_id, load_id, ask_id, attempt)
            ORDER BY c.timer_id
            ON CONFLICT (timer_id) DO UPDATE SET status = 'cancelled', cancelled_at = excluded.cancelled_at, claimed_until = NULL
                WHERE timers.status = 'scheduled'
            RETURNING timer_id""";

    /** MATERIALIZED: the locking subquery runs once, so a claim never takes more than its limit (see OutboxStatements.CLAIM). */
    public static final String CLAIM_DUE_TEMPLATE = """
            WITH due AS MATERIALIZED (
                SELECT load_id AS due_load, timer_id AS due_id FROM %1$s
                WHERE status = 'scheduled' AND fire_at <= $1
                  AND (claimed_until IS NULL OR claimed_until <= $1)
                ORDER BY fire_at
                LIMIT $3
                FOR UPDATE SKIP LOCKED)
            UPDATE %1$s t SET claimed_until = $2
            FROM due WHERE t.load_id = due.due_load AND t.timer_id = due.due_id
            RETURNING %2$s""";

    static final String CLAIM_DUE = CLAIM_DUE_TEMPLATE.formatted("timers", COLUMNS);

    /** By load and id, as every statement on one timer: on Citus the load names the timer's shard. */
    static final String MARK_FIRED = """
            UPDATE timers SET status = 'fired', fired_at = $2, claimed_until = NULL
            WHERE load_id = $3 AND timer_id = $1 AND status = 'scheduled'""";

    static final String FIND = "SELECT " + COLUMNS + " FROM timers WHERE load_id = $2 AND timer_id = $1";

    static final String FOR_LOAD = "SELECT " + COLUMNS + " FROM timers WHERE load_id = $1 ORDER BY fire_at, timer_id";

    static final String DUE_COUNT = "SELECT count(*) AS due FROM timers WHERE status = 'scheduled' AND fire_at <= $1";

    public static final String NEXT_FIRE_AT_TEMPLATE = """
            SELECT fire_at FROM %1$s WHERE status = 'scheduled' ORDER BY fire_at LIMIT 1""";

    static final String NEXT_FIRE_AT = NEXT_FIRE_AT_TEMPLATE.formatted("timers");

    static final String PRUNE = """
            DELETE FROM timers WHERE timer_id IN (
                SELECT timer_id FROM timers
                WHERE status <> 'scheduled' AND coalesce(fired_at, cancelled_at) < $1 LIMIT $2)""";

    protected final Pool pool;
    protected final Clock clock;
    protected final Duration claimLease;
    private final Wakeups wakeups;
    private final Duration wakeWithin;
    private final String schedule;
    private final String cancel;

    /**
     * @param claimLease how long a pump's claim on a due timer holds before another pump may fire it
     * @param wakeups    told after a schedule commits (the pumps' channel: they look again for the next fire_at)
     */
    public PgTimerStore(Pool pool, Clock clock, Duration claimLease, Wakeups wakeups) {
        this(pool, clock, claimLease, wakeups, null);
    }

    /**
     * @param wakeWithin tell the pumps only of timers due within this (null: of every timer). A pump
     *                   looks at least this often ({@code loadflow.pump.max-sleep}), and plans its next
     *                   look for the earliest {@code fire_at} it finds, so a timer due later is fired on
     *                   time without a NOTIFY: half-hour ETA timers cost the pumps nothing.
     */
    public PgTimerStore(Pool pool, Clock clock, Duration claimLease, Wakeups wakeups, Duration wakeWithin) {
        this(pool, clock, claimLease, wakeups, wakeWithin, SCHEDULE, CANCEL);
    }

    /** @param schedule {@link #SCHEDULE}, or its form for a schema whose key is wider; {@code cancel} likewise */
    protected PgTimerStore(Pool pool, Clock clock, Duration claimLease, Wakeups wakeups, Duration wakeWithin,
                           String schedule, String cancel) {
        if (claimLease.isNegative() || claimLease.isZero()) {
            throw new IllegalArgumentException("the claim lease must be positive, got " + claimLease);
        }
        this.pool = pool;
        this.clock = clock;
        this.claimLease = claimLease;
        this.wakeups = wakeups;
        this.wakeWithin = wakeWithin;
        this.schedule = schedule;
        this.cancel = cancel;
    }

    /** Tells the pumps of new timers, the earliest due first, unless all are due past the pumps' next look anyway. */
    protected void wake(Instant earliest) {
        if (wakeWithin == null || earliest.isBefore(clock.instant().plus(wakeWithin))) {
            wakeups.wake(PgNotifications.TIMERS, earliest);
        }
    }

    @Override
    public boolean schedule(Timer timer) {
        TimerId id = timer.timerId();
        boolean scheduled = Pg.await(pool.preparedQuery(schedule).execute(Tuple.of(id.toString(), id.loadId(),
                id.askId().toString(), id.attempt(), Pg.at(timer.fireAt()), Pg.at(clock.instant()),
                timer.correlationId(), timer.traceparent()))).rowCount() == 1;
        if (scheduled) {
            wake(timer.fireAt());
        }
        return scheduled;
    }

    @Override
    public Set<TimerId> scheduleAll(List<Timer> batch) {
        if (batch.isEmpty()) {
            return Set.of();
        }
        Set<TimerId> created = insert(batch);
        if (!created.isEmpty()) {
            wake(batch.stream().filter(t -> created.contains(t.timerId())).map(Timer::fireAt).min(Instant::compareTo)
                    .orElseThrow());
        }
        return created;
    }

    /** Schedules the batch in one statement ({@link #SCHEDULE_ALL}); returns the timers it created. */
    protected Set<TimerId> insert(List<Timer> batch) {
        Set<TimerId> inserted = new HashSet<>();
        Pg.await(pool.preparedQuery(SCHEDULE_ALL).execute(ids(Tuple.tuple(), batch.stream().map(Timer::timerId).toList())
                .addArrayOfOffsetDateTime(batch.stream().map(t -> Pg.at(t.fireAt())).toArray(OffsetDateTime[]::new))
                .addArrayOfString(batch.stream().map(Timer::correlationId).toArray(String[]::new))
                .addOffsetDateTime(Pg.at(clock.instant()))
                .addArrayOfString(batch.stream().map(Timer::traceparent).toArray(String[]::new))))
                .forEach(row -> inserted.add(TimerId.parse(row.getString("timer_id"))));
        return inserted;
    }

    @Override
    public Set<TimerId> cancelAll(List<TimerId> timerIds, Instant now) {
        List<TimerId> distinct = timerIds.stream().distinct().toList(); // one statement may not update a row twice
        if (distinct.isEmpty()) {
            return Set.of();
        }
        return cancel(distinct, now);
    }

    /** Cancels the timers, each once, in one statement ({@link #CANCEL_ALL}); returns those it cancelled. */
    protected Set<TimerId> cancel(List<TimerId> distinct, Instant now) {
        Set<TimerId> cancelled = new HashSet<>();
        Pg.await(pool.preparedQuery(CANCEL_ALL).execute(ids(Tuple.tuple(), distinct).addOffsetDateTime(Pg.at(now))))
                .forEach(row -> cancelled.add(TimerId.parse(row.getString("timer_id"))));
        return cancelled;
    }

    /** Adds the timers' ids, loads, asks and attempts to {@code params}, an array each. */
    protected static Tuple ids(Tuple params, List<TimerId> timerIds) {
        return params
                .addArrayOfString(timerIds.stream().map(TimerId::toString).toArray(String[]::new))
                .addArrayOfString(timerIds.stream().map(TimerId::loadId).toArray(String[]::new))
                .addArrayOfString(timerIds.stream().map(id -> id.askId().toString()).toArray(String[]::new))
                .addArrayOfInteger(timerIds.stream().map(TimerId::attempt).toArray(Integer[]::new));
    }

    @Override
    public boolean cancel(TimerId timerId, Instant now) {
        return Pg.await(pool.preparedQuery(cancel).execute(Tuple.of(timerId.toString(), timerId.loadId(),
                timerId.askId().toString(), timerId.attempt(), Pg.at(now)))).rowCount() == 1;
    }

    @Override
    public List<Timer> due(Instant now, int limit) {
        List<Timer> due = claim(now, limit);
        due.sort(Comparator.comparing(Timer::fireAt));
        return due;
    }

    /** Claims up to {@code limit} due timers in one statement ({@link #CLAIM_DUE}). */
    protected List<Timer> claim(Instant now, int limit) {
        return map(Pg.await(pool.preparedQuery(CLAIM_DUE).execute(Tuple.of(Pg.at(now), Pg.at(now.plus(claimLease)), limit))));
    }

    @Override
    public boolean markFired(TimerId timerId, Instant now) {
        return Pg.await(pool.preparedQuery(MARK_FIRED).execute(Tuple.of(timerId.toString(), Pg.at(now), timerId.loadId()))).rowCount() == 1;
    }

    @Override
    public Optional<Timer> find(TimerId timerId) {
        return map(Pg.await(pool.preparedQuery(FIND).execute(Tuple.of(timerId.toString(), timerId.loadId())))).stream().findFirst();
    }

    @Override
    public List<Timer> forLoad(String loadId) {
        return map(Pg.await(pool.preparedQuery(FOR_LOAD).execute(Tuple.of(loadId))));
    }

    @Override
    public long dueCount(Instant now) {
        return Pg.await(pool.preparedQuery(DUE_COUNT).execute(Tuple.of(Pg.at(now)))).iterator().next().getLong("due");
    }

    @Override
    public Optional<Instant> nextFireAt() {
        var rows = Pg.await(pool.preparedQuery(NEXT_FIRE_AT).execute());
        return rows.size() == 0 ? Optional.empty() : Optional.of(Pg.instant(rows.iterator().next(), "fire_at"));
    }

    @Override
    public int prune(Instant before, int batchSize) {
        return Pg.await(pool.preparedQuery(PRUNE).execute(Tuple.of(Pg.at(before), batchSize))).rowCount();
    }

    protected static List<Timer> map(RowSet<Row> rows) {
        List<Timer> timers = new ArrayList<>(rows.size());
        for (Row row : rows) {
            timers.add(new Timer(TimerId.parse(row.getString("timer_id")), Pg.instant(row, "fire_at"),
                    TimerStatus.fromWire(row.getString("status")), Pg.instant(row, "fired_at"),
                    Pg.instant(row, "cancelled_at"), Pg.instant(row, "created_at"), row.getString("correlation_id"),
                    row.getString("traceparent")));
        }
        return timers;
    }
}
