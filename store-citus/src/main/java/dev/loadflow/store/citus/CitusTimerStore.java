package dev.loadflow.store.citus;

import dev.loadflow.model.id.TimerId;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.timer.PgTimerStore;
import dev.loadflow.store.timer.Timer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Timers where Citus distributes them by load. The key a shard can enforce is
 * {@code (load_id, timer_id)}, so the upserts name it; a group of timers is scheduled or
 * cancelled node by node ({@link ByNode}), so that none is a transaction over every node; and
 * since Citus locks no rows of many shards in one statement, a claim and the look for the next
 * {@code fire_at} go a node at a time ({@link CitusNodes}): {@code loadflow_claim_timers} and
 * {@code loadflow_next_fire_at} work on the node's shards one by one, with
 * {@code FOR UPDATE SKIP LOCKED} inside each, as on one PostgreSQL: two pumps never pick the same timers.
 */
public class CitusTimerStore extends PgTimerStore {

    /** The key a shard enforces: the load's too. */
    static final String KEY = "load_id, timer_id";
    static final String SCHEDULE_OF_LOAD = SCHEDULE_TEMPLATE.formatted("timers", KEY);
    static final String CANCEL_OF_LOAD = CANCEL_TEMPLATE.formatted("timers", KEY);
    static final String CLAIM_HERE = "SELECT " + COLUMNS + " FROM loadflow_claim_timers($1, $2, $3, $4)";
    static final String NEXT_FIRE_AT_HERE = "SELECT loadflow_next_fire_at($1) AS fire_at";

    /**
     * {@code SCHEDULE_ALL} or {@code CANCEL_ALL} for the timers of one node: $1 the node's probe,
     * $2 the probes called before it, $3 whether to cancel, $4–$7 ids, loads, asks and attempts,
     * $8 fire times, $9 correlation ids, $10 traceparents, $11 now; a row back per timer of that
     * node ({@code owned}) with whether it was created or cancelled.
     */
    static final String TIMERS_HERE = "SELECT owned, changed FROM loadflow_timers_here($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";

    private final CitusNodes nodes;
    private final ByNode<TimerId> group;

    public CitusTimerStore(Pool pool, Clock clock, Duration claimLease, Wakeups wakeups, Duration wakeWithin) {
        super(pool, clock, claimLease, wakeups, wakeWithin, SCHEDULE_OF_LOAD, CANCEL_OF_LOAD);
        this.nodes = new CitusNodes(pool, "timers", clock, CitusNodes.REFRESH);
        this.group = new ByNode<>(nodes, TimerId::toString, TimerId::loadId);
    }

    @Override
    protected Set<TimerId> insert(List<Timer> batch) {
        Map<TimerId, Timer> distinct = new LinkedHashMap<>();
        batch.forEach(timer -> distinct.putIfAbsent(timer.timerId(), timer));
        List<Timer> timers = List.copyOf(distinct.values());
        OffsetDateTime now = Pg.at(clock.instant());
        Tuple params = ids(Tuple.tuple().addBoolean(false), List.copyOf(distinct.keySet()))
                .addArrayOfOffsetDateTime(timers.stream().map(t -> Pg.at(t.fireAt())).toArray(OffsetDateTime[]::new))
                .addArrayOfString(timers.stream().map(Timer::correlationId).toArray(String[]::new))
                .addArrayOfString(timers.stream().map(Timer::traceparent).toArray(String[]::new))
                .addOffsetDateTime(now);
        return changed(List.copyOf(distinct.keySet()), params, SCHEDULE_OF_LOAD, id -> {
            Timer t = distinct.get(id);
            return Tuple.of(id.toString(), id.loadId(), id.askId().toString(), id.attempt(), Pg.at(t.fireAt()), now,
                    t.correlationId(), t.traceparent());
        });
    }

    @Override
    protected Set<TimerId> cancel(List<TimerId> distinct, Instant now) {
        OffsetDateTime at = Pg.at(now);
        Tuple params = ids(Tuple.tuple().addBoolean(true), distinct)
                .addArrayOfOffsetDateTime(distinct.stream().map(id -> at).toArray(OffsetDateTime[]::new))
                .addArrayOfString(new String[distinct.size()])
                .addArrayOfString(new String[distinct.size()])
                .addOffsetDateTime(at);
        return changed(distinct, params, CANCEL_OF_LOAD, id -> Tuple.of(id.toString(), id.loadId(), id.askId().toString(),
                id.attempt(), at));
    }

    /**
     * The group to every node at once ({@link #TIMERS_HERE}), each node's timers in one local
     * transaction; a timer no node took then by itself ({@code alone}). Returns the timers changed.
     */
    private Set<TimerId> changed(List<TimerId> timerIds, Tuple params, String alone,
                                 java.util.function.Function<TimerId, Tuple> aloneParams) {
        ByNode.Answers<TimerId> sent = group.toEveryNode(timerIds, TIMERS_HERE, params).orThrow();
        Set<TimerId> changed = new HashSet<>();
        sent.rows().stream().filter(row -> row.getBoolean("changed")).forEach(row -> changed.add(TimerId.parse(row.getString("owned"))));
        group.eachByItself(sent.left(), alone, aloneParams).orThrow().forEach((id, answer) -> {
            if (answer.rowCount() == 1) {
                changed.add(id);
            }
        });
        return changed;
    }

    @Override
    protected List<Timer> claim(Instant now, int limit) {
        List<Timer> due = new ArrayList<>();
        for (String probe : nodes.inTurn()) {
            RowSet<Row> rows = nodes.onNode(CLAIM_HERE, Tuple.of(probe, Pg.at(now), Pg.at(now.plus(claimLease)), limit - due.size()));
            if (rows != null) {
                due.addAll(map(rows));
            }
            if (due.size() >= limit) {
                break;
            }
        }
        return due;
    }

    @Override
    public Optional<Instant> nextFireAt() {
        Optional<Instant> earliest = Optional.empty();
        for (String probe : nodes.inTurn()) {
            RowSet<Row> rows = nodes.onNode(NEXT_FIRE_AT_HERE, Tuple.of(probe));
            Instant next = rows == null ? null : Pg.instant(rows.iterator().next(), "fire_at");
            if (next != null && (earliest.isEmpty() || next.isBefore(earliest.get()))) {
                earliest = Optional.of(next);
            }
        }
        return earliest;
    }
}
