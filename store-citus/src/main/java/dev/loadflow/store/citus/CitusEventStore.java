package dev.loadflow.store.citus;

import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.store.eventlog.ConcurrencyConflictException;
import dev.loadflow.store.eventlog.DuplicateActionKeyException;
import dev.loadflow.store.eventlog.DuplicateEntryException;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.outbox.OutboxInsert;
import dev.loadflow.store.outbox.OutboxMessage;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.Wakeups;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The event log where Citus distributes it by load. Citus refuses the batch forms of the append
 * and the read (a correlated subquery beside a set-returning function), so a batch goes node by
 * node ({@link ByNode}): each node appends or reads its loads of the batch in one local
 * transaction, one trip from the coordinator; each load stays all or nothing, the batch does not
 * (the loads of a node that committed stand when another node failed).
 */
public class CitusEventStore extends PgEventStore {

    /**
     * {@link PgEventStore#APPEND} for the loads of one node: $1 a probe ({@link CitusNodes}: a load
     * whose shards lie on the node, or the one load appended by itself), $2 the probes called
     * before it, then the parameters of {@link PgEventStore#APPEND}. {@code loadflow_append_here}
     * runs on the node, writes the loads whose shards lie there, each only if its log is at the
     * expected version, and answers a row per such load ({@code owned}) with whether it was appended.
     */
    static final String APPEND_HERE = "SELECT owned, appended FROM loadflow_append_here($1, $2, $3, $4, $5, $6, $7, $8, "
            + "$9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)";

    /**
     * {@link PgEventStore#READ_AFTER} for the loads of one node: $1 the node's probe, $2 the probes
     * called before it, $3 the loads, $4 the seq after which each is read. A row with only the load
     * ({@code owned}, seq NULL) for each load read there, then its entries in order.
     */
    static final String READ_HERE = "SELECT owned, seq, kind, recorded_at, body FROM loadflow_read_here($1, $2, $3, $4)";

    /**
     * {@link PgEventStore#CONTAINS_ANY} for the pairs of one node: $1 the node's probe, $2 the probes
     * called before it, $3 loads, $4 entry ids, a pair each; a row per pair ({@code owned} its load)
     * with whether the log holds it.
     */
    static final String CONTAINS_HERE = "SELECT owned, entry_id, held FROM loadflow_contains_here($1, $2, $3, $4)";

    private final ByNode<String> loads;
    private final ByNode<Append> appends;

    public CitusEventStore(Pool pool, Clock clock, Wakeups wakeups) {
        super(pool, clock, wakeups);
        CitusNodes nodes = new CitusNodes(pool, "event_log", clock, CitusNodes.REFRESH);
        this.loads = new ByNode<>(nodes, load -> load, load -> load);
        this.appends = new ByNode<>(nodes, Append::loadId, Append::loadId);
    }

    @Override
    protected void readAfter(Map<String, Long> versions, Map<String, List<RecordedEntry>> byLoad, Set<String> archived) {
        List<String> asked = List.copyOf(versions.keySet());
        ByNode.Answers<String> read = loads.toEveryNode(asked, READ_HERE, Tuple.tuple()
                .addArrayOfString(asked.toArray(String[]::new)).addArrayOfLong(versions.values().toArray(Long[]::new))).orThrow();
        for (Row row : read.rows()) {
            if (row.getLong("seq") != null) {
                add(row.getString("owned"), row, byLoad, archived);
            }
        }
        Map<String, RowSet<Row>> each = loads.eachByItself(read.left(), READ_AFTER_ONE,
                load -> Tuple.of(load, versions.get(load))).orThrow();
        each.forEach((load, rows) -> rows.forEach(row -> add(load, row, byLoad, archived)));
    }

    private static void add(String loadId, Row row, Map<String, List<RecordedEntry>> byLoad, Set<String> archived) {
        if (isMarker(row)) {
            archived.add(loadId);
        }
        byLoad.get(loadId).add(entry(row));
    }

    /** A node at a time ({@link #CONTAINS_HERE}); the pairs no node answered for in one statement routed to their shards. */
    @Override
    protected Set<String> held(List<String> loadIds, List<String> entryIds) {
        ByNode<Integer> byPair = new ByNode<>(loads.nodes(), i -> loadIds.get(i), i -> loadIds.get(i));
        ByNode.Answers<Integer> asked = byPair.toEveryNode(IntStream.range(0, loadIds.size()).boxed().toList(), CONTAINS_HERE,
                Tuple.tuple().addArrayOfString(loadIds.toArray(String[]::new)).addArrayOfString(entryIds.toArray(String[]::new)))
                .orThrow();
        Set<String> held = new HashSet<>();
        for (Row row : asked.rows()) {
            if (row.getBoolean("held")) {
                held.add(pair(row.getString("owned"), row.getString("entry_id")));
            }
        }
        if (!asked.left().isEmpty()) {
            held.addAll(super.held(asked.left().stream().map(loadIds::get).toList(), asked.left().stream().map(entryIds::get).toList()));
        }
        return held;
    }

    /** The batch to every node at once ({@link #APPEND_HERE}); a load no node took is then appended by itself. */
    @Override
    protected Written insert(List<Append> batch, OffsetDateTime now) {
        Tuple params = entries(Tuple.tuple().addOffsetDateTime(now), batch);
        OutboxInsert.bind(params, batch.stream().flatMap(a -> a.outbox().stream()).toList());
        ByNode.Answers<Append> sent = appends.toEveryNode(batch, APPEND_HERE, params);
        Set<String> written = new HashSet<>();
        sent.rows().stream().filter(row -> row.getBoolean("appended")).forEach(row -> written.add(row.getString("owned")));
        if (sent.failure() != null || sent.left().isEmpty()) {
            return new Written(written, sent.failure());
        }
        ByNode.Each<Append> each = appends.eachByItself(sent.left(), APPEND_HERE, append -> {
            Tuple one = entries(Tuple.tuple().addString(append.loadId()).addArrayOfString(new String[0])
                    .addOffsetDateTime(now), List.of(append));
            OutboxInsert.bind(one, append.outbox());
            return one;
        });
        each.answered().values().forEach(rows -> rows.forEach(row -> {
            if (row.getBoolean("appended")) {
                written.add(row.getString("owned"));
            }
        }));
        return new Written(written, each.failure());
    }

    @Override
    protected boolean isUnnamedViolation(RuntimeException failure) {
        return CitusNodes.violatesUnnamed(failure);
    }

    /**
     * Which key a unique violation Citus did not name was (Citus reports a shard's violation by
     * its message alone), told by the rows as they are now: a log that moved past the expected
     * version is a conflict (as {@code event_log_pkey}), an entry already in it a duplicate
     * ({@code event_log_entry_key}), else the outbox's key.
     */
    @Override
    protected RuntimeException unnamed(Append append, RuntimeException violation) {
        if (!CitusNodes.violatesUnnamed(violation)) {
            return violation;
        }
        String loadId = append.loadId();
        long version = Pg.await(pool.preparedQuery(VERSION).execute(Tuple.of(loadId))).iterator().next().getLong(0);
        if (version != append.expectedVersion()) {
            return new ConcurrencyConflictException(loadId, append.expectedVersion(), violation);
        }
        List<String> entryIds = append.entries().stream().map(LogEntry::entryId).toList();
        if (entryIds.stream().anyMatch(id -> contains(loadId, id))) {
            return new DuplicateEntryException(loadId, entryIds, violation);
        }
        return new DuplicateActionKeyException(loadId, append.outbox().stream().map(OutboxMessage::outboxId).toList(),
                violation);
    }
}
