package dev.loadflow.store.citus;

import dev.loadflow.store.pg.Pg;

import io.vertx.core.Future;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The nodes of a Citus cluster that hold shards of a table, each named by a probe: a load id
 * whose shard lies on that node. A function distributed by {@code load_id} and called with a
 * node's probe runs on that node (Citus sends the call there), where the claims of the schema's
 * callback ({@code loadflow_claim_outbox}, {@code loadflow_claim_timers},
 * {@code loadflow_next_fire_at}) work on the node's own shards alone. A claimant calls them a
 * node at a time, starting one node further on each pass, so no node waits behind another.
 *
 * <p>The probes are read again every {@code refresh} and whenever a node refuses one
 * ({@link #onNode}): a node added and shards rebalanced are found within that time.
 */
public final class CitusNodes {

    /** How long probes are trusted by default: a node added is claimed from within this. */
    public static final Duration REFRESH = Duration.ofSeconds(30);

    /** SQLSTATE the claims raise when called where the probe's shard is not. */
    public static final String NOT_HERE = "LF001";

    /** One probe per node holding shards of $1 ({@code loadflow_node_probes}, on the coordinator). */
    static final String PROBES = "SELECT probe FROM loadflow_node_probes($1::regclass) AS probe";

    private final Pool pool;
    private final String table;
    private final Clock clock;
    private final Duration refresh;
    private final AtomicInteger turn = new AtomicInteger();
    private volatile List<String> probes = List.of();
    private volatile Instant readAt = Instant.MIN;

    /**
     * @param table   the distributed table whose shards the claims work on
     * @param refresh how long the probes are trusted before they are read again
     */
    public CitusNodes(Pool pool, String table, Clock clock, Duration refresh) {
        this.pool = pool;
        this.table = table;
        this.clock = clock;
        this.refresh = refresh;
    }

    /** The pool the calls go through (to the coordinator, which sends each to its node). */
    public Pool pool() {
        return pool;
    }

    /** The probes, one per node, starting one node further than the last call did. */
    public List<String> inTurn() {
        List<String> known = known();
        int start = Math.floorMod(turn.getAndIncrement(), Math.max(known.size(), 1));
        List<String> ordered = new ArrayList<>(known.size());
        for (int i = 0; i < known.size(); i++) {
            ordered.add(known.get((start + i) % known.size()));
        }
        return ordered;
    }

    /**
     * Whether rows of {@code loads} loads are fewer than the nodes: sent a node at a time
     * ({@link #onEveryNode}) they would cost a call on every node, some with nothing to do, where
     * each load by itself costs one call.
     */
    public boolean fewerThanNodes(int loads) {
        return loads < known().size();
    }

    private List<String> known() {
        Instant now = clock.instant();
        List<String> known = probes;
        if (known.isEmpty() || !now.isBefore(readAt.plus(refresh))) {
            known = read();
            probes = known;
            readAt = now;
        }
        return known;
    }

    /**
     * Runs {@code statement}, whose first parameter is a probe, on that probe's node; null when
     * the node no longer holds the probe's shard (a shard moved): the caller passes it over and
     * the probes are read again on the next call.
     */
    public RowSet<Row> onNode(String statement, Tuple params) {
        try {
            return Pg.await(pool.preparedQuery(statement).execute(params));
        } catch (PgException e) {
            if (refused(e)) {
                return null;
            }
            throw e;
        }
    }

    /**
     * {@code statement} on every node at once: $1 the node's probe, $2 the probes called before it
     * (a node one of them leads to as well, after a shard moved, leaves its rows to that call),
     * then {@code rest}'s values. Waits until every call answered; each call's failure, a refusal
     * ({@link #refused}) among them, is the caller's to read.
     */
    public List<Future<RowSet<Row>>> onEveryNode(String statement, Tuple rest) {
        List<Future<RowSet<Row>>> calls = new ArrayList<>();
        List<String> probes = inTurn();
        for (int p = 0; p < probes.size(); p++) {
            Tuple params = Tuple.tuple().addString(probes.get(p)).addArrayOfString(probes.subList(0, p).toArray(String[]::new));
            for (int i = 0; i < rest.size(); i++) {
                params.addValue(rest.getValue(i));
            }
            calls.add(pool.preparedQuery(statement).execute(params));
        }
        awaitEvery(calls);
        return calls;
    }

    /** Waits until every call answered; a failure is thrown only when some call never did (told apart call by call else). */
    public static void awaitEvery(List<Future<RowSet<Row>>> calls) {
        try {
            Pg.await(Future.join(calls));
        } catch (RuntimeException e) {
            if (calls.stream().anyMatch(call -> !call.isComplete())) {
                throw e;
            }
        }
    }

    /**
     * Whether {@code failure} is a node's refusal of its probe ({@link #NOT_HERE}: the probe's
     * shard moved away); if so the probes are read again on the next call.
     */
    public boolean refused(Throwable failure) {
        if (failure instanceof PgException e && NOT_HERE.equals(e.getSqlState())) {
            readAt = Instant.MIN;
            return true;
        }
        return false;
    }

    /**
     * Whether {@code error} is a unique violation that names no constraint: how Citus reports one
     * a shard raised (the shard's message, not its fields). The caller tells which key it was from
     * the rows, as {@link Pg#violates} tells it from the name on one PostgreSQL.
     */
    public static boolean violatesUnnamed(Throwable error) {
        return error instanceof PgException pg && Pg.UNIQUE_VIOLATION.equals(pg.getSqlState()) && pg.getConstraint() == null;
    }

    private List<String> read() {
        List<String> read = new ArrayList<>();
        for (Row row : Pg.await(pool.preparedQuery(PROBES).execute(Tuple.of(table)))) {
            read.add(row.getString("probe"));
        }
        return List.copyOf(read);
    }
}
