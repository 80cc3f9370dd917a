package dev.loadflow.store.citus;

import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatements;
import dev.loadflow.store.outbox.PgOutbox;
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
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The outbox where Citus distributes it by load. Citus locks no rows of many shards in one
 * statement, so a claim goes a node at a time ({@link CitusNodes}): {@code loadflow_claim_outbox}
 * runs on the node that holds its probe's shard and claims from that node's shards one by one,
 * with {@code FOR UPDATE SKIP LOCKED} inside each, as on one PostgreSQL: two dispatchers never
 * pick the same rows. Marks go node by node ({@link ByNode}); a row's failures are found by its
 * load too, which names their shard.
 */
public class CitusOutbox extends PgOutbox {

    /** {@link PgOutbox#CLAIM} on one node: $1 its probe, $2 now, $3 the lease's end, $4 the channels (NULL: any), $5 how many of each. */
    static final String CLAIM_HERE = "SELECT " + COLUMNS + " FROM loadflow_claim_outbox($1, $2, $3, $4, $5)";

    /**
     * {@code MARK_DISPATCHED_ALL} for the rows of one node: $1 the node's probe, $2 the probes
     * called before it, $3 ids, $4 claim tokens, $5 receipts, $6 the rows' loads, $7 now; a row
     * back per row of that node ({@code owned}) with whether its claim held.
     */
    static final String DISPATCHED_HERE = "SELECT owned, marked FROM loadflow_dispatched_here($1, $2, $3, $4, $5, $6, $7)";

    static final String FAILURES_OF_LOAD = OutboxStatements.FAILURES_TEMPLATE.formatted("load_id = $2 AND ");

    private final CitusNodes nodes;
    private final ByNode<Dispatched> marks;

    public CitusOutbox(Pool pool, Clock clock, Duration lease) {
        super(pool, clock, lease);
        this.nodes = new CitusNodes(pool, "outbox", clock, CitusNodes.REFRESH);
        this.marks = new ByNode<>(nodes, Dispatched::outboxId, row -> loadOf(row.outboxId()));
    }

    /**
     * Asks each node in turn for what is still wanted, until nothing is. A node that no longer
     * holds its probe's shard (a shard moved) is passed over; the probes are read again on the
     * next claim.
     */
    @Override
    protected List<OutboxRow> claim(String[] channels, Integer[] wanted, Instant now) {
        List<OutboxRow> claimed = new ArrayList<>();
        Integer[] left = wanted.clone();
        for (String probe : nodes.inTurn()) {
            RowSet<Row> rows = nodes.onNode(CLAIM_HERE, Tuple.of(probe, Pg.at(now), Pg.at(now.plus(lease)), channels, left));
            if (rows == null) {
                continue;
            }
            for (OutboxRow row : map(rows)) {
                claimed.add(row);
                int i = channels == null ? 0 : Arrays.asList(channels).indexOf(row.channel().wire());
                left[i] = left[i] - 1;
            }
            if (Arrays.stream(left).allMatch(n -> n <= 0)) {
                break;
            }
        }
        return claimed;
    }

    /** Every node marks its rows at once ({@link #DISPATCHED_HERE}); a row no node took is then marked by itself. */
    @Override
    protected Set<String> markDispatched(List<Dispatched> rows, Set<String> stale) {
        OffsetDateTime now = Pg.at(clock.instant());
        ByNode.Answers<Dispatched> sent = marks.toEveryNode(rows, DISPATCHED_HERE, Tuple.tuple()
                .addArrayOfString(rows.stream().map(Dispatched::outboxId).toArray(String[]::new))
                .addArrayOfUUID(rows.stream().map(Dispatched::claimToken).toArray(UUID[]::new))
                .addArrayOfString(rows.stream().map(Dispatched::receipt).toArray(String[]::new))
                .addArrayOfString(rows.stream().map(row -> loadOf(row.outboxId())).toArray(String[]::new))
                .addOffsetDateTime(now)).orThrow();
        sent.rows().stream().filter(row -> row.getBoolean("marked")).forEach(row -> stale.remove(row.getString("owned")));
        marks.eachByItself(sent.left(), MARK_DISPATCHED, row -> Tuple.of(row.outboxId(), row.claimToken(), row.receipt(), now,
                loadOf(row.outboxId()))).orThrow().forEach((row, answer) -> {
            if (answer.rowCount() == 1) {
                stale.remove(row.outboxId());
            }
        });
        return stale;
    }

    @Override
    protected RowSet<Row> failureRows(String outboxId) {
        return Pg.await(pool.preparedQuery(FAILURES_OF_LOAD).execute(Tuple.of(outboxId, loadOf(outboxId))));
    }
}
