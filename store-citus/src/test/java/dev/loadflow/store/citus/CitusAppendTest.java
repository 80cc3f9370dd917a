package dev.loadflow.store.citus;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.loadflow.testing.Fixtures.decision;
import static dev.loadflow.testing.Fixtures.etaAsk;
import static dev.loadflow.testing.Fixtures.outboxRows;
import static dev.loadflow.testing.Fixtures.ping;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A batch's append on a log Citus distributes (skipped on one PostgreSQL): one transaction per
 * node, so a violation in one load leaves that node's loads of the batch unwritten and the other
 * node's written, each load whole; and when a shard moved under the probes, every load is still
 * appended, once, and a batch's read still finds each load's entries.
 */
class CitusAppendTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("citus_append");

    private static final Instant T0 = Instant.parse("2026-12-02T07:00:00Z");

    private EventStore store;

    @BeforeEach
    void onCitus() {
        assumeTrue(PG.database().citus(), "needs a Citus coordinator (QUARKUS_DATASOURCE_JDBC_URL)");
        PG.database().truncateAll();
        store = new CitusEventStore(PG.pool(), FakeClock.at(T0), PG.wakeups());
    }

    @Test
    void aViolationInOneLoadLeavesItsNodesLoadsOfTheBatchUnwrittenAndTheOtherNodesWritten() {
        Map<Integer, List<String>> byNode = loadsByNode(2);
        List<Integer> nodes = List.copyOf(byNode.keySet());
        String fresh = byNode.get(nodes.get(0)).get(0);
        String duplicate = byNode.get(nodes.get(0)).get(1);
        String elsewhere = byNode.get(nodes.get(1)).get(0);
        store.append(duplicate, List.of(ping(duplicate, "ping_0655", T0)), 0, List.of());

        EventStore.Unwritten unwritten = store.appendAll(List.of(
                etaAskFor(fresh),
                new EventStore.Append(duplicate, List.of(ping(duplicate, "ping_0655", T0)), 1, List.of()),
                etaAskFor(elsewhere)));

        assertThat(unwritten.refused()).as("the duplicate's node's loads; the other node's written by its own transaction")
                .containsExactlyInAnyOrder(fresh, duplicate);

        assertThat(store.read(fresh).version()).as("written with the duplicate, so not at all").isZero();
        assertThat(store.read(duplicate).version()).isEqualTo(1);
        assertThat(store.read(elsewhere).version()).as("the ping and its decision").isEqualTo(2);
        assertThat(PG.database().count("SELECT count(*) FROM outbox WHERE load_id = '" + elsewhere + "'"))
                .as("with its SMS and timer").isEqualTo(etaAskFor(elsewhere).outbox().size());
        assertThat(PG.database().count("SELECT count(*) FROM outbox WHERE load_id = '" + fresh + "'")).isZero();
    }

    @Test
    void whenTheShardOfANodesProbeMovesEveryLoadOfABatchIsStillAppendedOnceReadAndAskedAbout() {
        Map<Integer, List<String>> byNode = loadsByNode(6);
        String probe = PG.database().rows("SELECT probe FROM loadflow_node_probes('event_log') AS probe LIMIT 1")
                .getFirst().get("probe").toString();
        store.appendAll(byNode.values().stream().map(loads -> etaAskFor(loads.getFirst())).toList());  // the probes are read

        long shard = ((Number) PG.database().rows("SELECT get_shard_id_for_distribution_column('event_log', ?) AS shard", probe)
                .getFirst().get("shard")).longValue();
        int from = ((Number) PG.database().rows("SELECT nodeport FROM citus_shards WHERE shardid = ?", shard)
                .getFirst().get("nodeport")).intValue();
        int to = ((Number) PG.database().rows("""
                SELECT nodeport FROM pg_dist_node WHERE shouldhaveshards AND isactive AND noderole = 'primary' AND nodeport <> ?
                ORDER BY nodeport LIMIT 1""", from).getFirst().get("nodeport")).intValue();
        ShardMoves.move(PG.database(), shard, from, to);
        try {
            // both probes now lead to one node: the loads of the other are appended each by itself
            List<EventStore.Append> batch = new ArrayList<>();
            byNode.values().forEach(loads -> loads.stream().skip(1).forEach(load -> batch.add(etaAskFor(load))));

            EventStore.Unwritten unwritten = store.appendAll(batch);

            assertThat(unwritten).as("every load appended").isEqualTo(EventStore.Unwritten.NONE);
            for (EventStore.Append append : batch) {
                assertThat(store.read(append.loadId()).version()).as("%s, once", append.loadId()).isEqualTo(2);
            }
            assertThat(PG.database().count("SELECT count(*) FROM outbox")).as("an SMS and a timer each, the first batch's too")
                    .isEqualTo((long) (batch.size() + byNode.size()) * etaAskFor(batch.getFirst().loadId()).outbox().size());

            Map<String, Long> versions = new java.util.LinkedHashMap<>();
            batch.forEach(append -> versions.put(append.loadId(), 0L));
            versions.put(batch.getFirst().loadId(), 1L);
            versions.put(batch.getLast().loadId(), 2L);
            Map<String, List<RecordedEntry>> read = store.readAfter(versions);

            assertThat(read).as("every load of the batch read, on whichever node").containsOnlyKeys(versions.keySet());
            versions.forEach((load, after) -> assertThat(read.get(load)).as("%s after seq %d", load, after)
                    .extracting(RecordedEntry::seq).isEqualTo(after == 2L ? List.of() : after == 1L ? List.of(2L) : List.of(1L, 2L)));

            List<String> loads = new ArrayList<>();
            List<String> entries = new ArrayList<>();
            batch.forEach(append -> {
                loads.add(append.loadId());
                entries.add("ping_0700");
                loads.add(append.loadId());
                entries.add("ping_0705");
            });
            assertThat(store.contains(loads, entries)).as("which events the logs hold, on whichever node")
                    .isEqualTo(java.util.stream.IntStream.range(0, loads.size()).mapToObj(i -> i % 2 == 0).toList());
        } finally {
            ShardMoves.move(PG.database(), shard, to, from);
        }
    }

    /** A high-risk ping to a load with nothing logged yet, its decision and its SMS. */
    private static EventStore.Append etaAskFor(String load) {
        InboundEvent ping = ping(load, "ping_0700", T0);
        List<Action> actions = etaAsk(ping, T0);
        return new EventStore.Append(load, List.of(ping, decision(ping, T0, actions)), 0,
                outboxRows(load, actions, T0, ping.eventId()));
    }

    /** {@code perNode} load ids for each node holding shards of the log, by the node's group. */
    private static Map<Integer, List<String>> loadsByNode(int perNode) {
        Map<Integer, List<String>> byNode = new java.util.TreeMap<>();
        for (Map<String, Object> row : PG.database().rows("""
                SELECT 'citus-append-' || g AS load, p.groupid
                FROM generate_series(1, 200) g
                JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('event_log', 'citus-append-' || g)
                ORDER BY g""")) {
            List<String> loads = byNode.computeIfAbsent(((Number) row.get("groupid")).intValue(), node -> new ArrayList<>());
            if (loads.size() < perNode) {
                loads.add(row.get("load").toString());
            }
        }
        assertThat(byNode).as("two nodes hold the log's shards").hasSizeGreaterThanOrEqualTo(2);
        return byNode;
    }
}
