package dev.loadflow.store.citus;

import dev.loadflow.store.pg.Pg;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * How a batch of rows of many loads goes to a distributed table: the batch is sent to every
 * node at once, each node answering for the keys whose shards it holds (a row or more per key,
 * its {@code owned} column naming the key); the keys no node answered for (their shard was
 * moving, or lies on a node added since the probes were read) then go by themselves, each
 * routed to its load's shard. A batch of fewer loads than nodes goes key by key from the start:
 * a call on every node would cost more than one per load.
 *
 * <p>Each node's call is a transaction of its own there: a batch is never one transaction over
 * several nodes (which Citus would commit in two phases). Every store on Citus that writes or
 * reads a batch goes through this class.
 *
 * @param <K> what the batch is made of: loads, events, outbox rows, timers
 */
public final class ByNode<K> {

    private final CitusNodes nodes;
    private final Function<K, String> owner;
    private final Function<K, String> loadOf;

    /**
     * @param owner  how a node names the key it answers for ({@code owned})
     * @param loadOf the load whose shard holds the key
     */
    public ByNode(CitusNodes nodes, Function<K, String> owner, Function<K, String> loadOf) {
        this.nodes = nodes;
        this.owner = owner;
        this.loadOf = loadOf;
    }

    /** The nodes this sends to. */
    public CitusNodes nodes() {
        return nodes;
    }

    /**
     * What the nodes answered for a batch: their rows, the keys they left (in the batch's order),
     * and the first failure that was not a node's refusal of its probe (the answers of the other
     * nodes stand: each committed by itself).
     */
    public record Answers<K>(List<Row> rows, List<K> left, RuntimeException failure) {

        /** The failure, thrown; the answers when there is none. */
        public Answers<K> orThrow() {
            if (failure != null) {
                throw failure;
            }
            return this;
        }
    }

    /**
     * {@code statement} on every node ($1 the node's probe, $2 the probes called before it, then
     * {@code batch}'s values), unless the batch's loads are fewer than the nodes: then every key is
     * left.
     */
    public Answers<K> toEveryNode(List<K> keys, String statement, Tuple batch) {
        if (nodes.fewerThanNodes((int) keys.stream().map(loadOf).distinct().count())) {
            return new Answers<>(List.of(), List.copyOf(keys), null);
        }
        List<Row> rows = new ArrayList<>();
        RuntimeException failure = null;
        for (Future<RowSet<Row>> call : nodes.onEveryNode(statement, batch)) {
            if (call.failed()) {
                if (!nodes.refused(call.cause()) && failure == null) {
                    failure = Pg.unchecked(call.cause());
                }
                continue;
            }
            call.result().forEach(rows::add);
        }
        Set<String> owned = new HashSet<>();
        rows.forEach(row -> owned.add(row.getString("owned")));
        return new Answers<>(rows, keys.stream().filter(key -> !owned.contains(owner.apply(key))).toList(), failure);
    }

    /**
     * {@code statement} once per key, all sent at once, each routed to its key's shard by its
     * parameters and committed there. Waits until every call answered; the first failure is in
     * what is returned, beside the answers of the calls that succeeded.
     */
    public Each<K> eachByItself(List<K> keys, String statement, Function<K, Tuple> params) {
        return each(nodes.pool(), keys, statement, params);
    }

    /** {@link #eachByItself}, through {@code pool}. */
    public static <K> Each<K> each(Pool pool, List<K> keys, String statement, Function<K, Tuple> params) {
        List<Future<RowSet<Row>>> calls = keys.stream().map(key -> pool.preparedQuery(statement).execute(params.apply(key))).toList();
        CitusNodes.awaitEvery(calls);
        Map<K, RowSet<Row>> answered = new LinkedHashMap<>();
        RuntimeException failure = null;
        for (int i = 0; i < keys.size(); i++) {
            Future<RowSet<Row>> call = calls.get(i);
            if (call.failed()) {
                failure = failure == null ? Pg.unchecked(call.cause()) : failure;
            } else {
                answered.put(keys.get(i), call.result());
            }
        }
        return new Each<>(answered, failure);
    }

    /** What the calls key by key answered, and the first failure among them. */
    public record Each<K>(Map<K, RowSet<Row>> answered, RuntimeException failure) {

        /** The failure, thrown; the answers when there is none. */
        public Map<K, RowSet<Row>> orThrow() {
            if (failure != null) {
                throw failure;
            }
            return answered;
        }
    }
}
