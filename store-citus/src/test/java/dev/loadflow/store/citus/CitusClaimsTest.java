package dev.loadflow.store.citus;

import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.timer.PgTimerStore;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The claims by node on a schema Citus distributes (skipped on one PostgreSQL): a claim that
 * Citus did not send to its probe's node is refused rather than coming back empty, and when a
 * shard moves to another node while rows wait, every row is still claimed, once, as soon as the
 * claimant reads the nodes again; and a dispatcher's marks, a node at a time, set each row whose
 * claim holds dispatched once, wherever its shard went, as its timers, a node at a time, are
 * scheduled and cancelled once each.
 */
class CitusClaimsTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("citus_claims");

    private static final Instant T0 = Instant.parse("2026-12-02T07:00:00Z");

    @BeforeEach
    void onCitus() {
        assumeTrue(PG.database().citus(), "needs a Citus coordinator (QUARKUS_DATASOURCE_JDBC_URL)");
        PG.database().truncateAll();
    }

    @Test
    void aClaimRunWhereItsProbesShardIsNotIsRefusedNotEmpty() {
        stage(4);
        // inside a transaction block Citus runs the function on the coordinator, which holds no shard
        assertThatThrownBy(() -> PG.database().execute("""
                BEGIN;
                SELECT count(*) FROM loadflow_claim_outbox('node-probe-0', now(), now() + interval '90 seconds', NULL, ARRAY[4]);
                COMMIT"""))
                .hasStackTraceContaining("is not on this node");
        assertThat(PG.database().count("SELECT count(*) FROM outbox WHERE claim_token IS NULL")).as("nothing claimed").isEqualTo(4);
    }

    @Test
    void whenTheShardOfANodesProbeMovesEveryRowIsStillClaimedOnceWithinTheRefresh() {
        List<String> staged = stage(40);
        FakeClock clock = FakeClock.at(T0);
        PgOutbox outbox = new CitusOutbox(PG.pool(), clock, Duration.ofSeconds(90));
        Map<String, Integer> claims = new HashMap<>();
        claimInto(claims, outbox.pending(1, clock.instant()));

        // the shard of the first node's probe goes to the other node: that probe now leads there too
        ProbeMove move = moveFirstProbesShard();
        try {
            List<OutboxRow> batch;
            while (!(batch = outbox.pending(7, clock.instant())).isEmpty()) {
                claimInto(claims, batch);
            }
            assertThat(claims).as("the rows of the first node's other shard wait until the nodes are read again")
                    .hasSizeLessThan(staged.size());
            clock.advance(CitusNodes.REFRESH);
            while (!(batch = outbox.pending(7, clock.instant())).isEmpty()) {
                claimInto(claims, batch);
            }
        } finally {
            move.back();
        }

        assertThat(claims.keySet()).as("every row claimed").containsExactlyInAnyOrderElementsOf(staged);
        assertThat(claims.values()).as("each once").containsOnly(1);
    }

    @Test
    void aDispatchersMarksReachEveryNodesRowsOnceAndLeaveAStaleClaimPending() {
        List<String> staged = stage(24);
        FakeClock clock = FakeClock.at(T0);
        PgOutbox outbox = new CitusOutbox(PG.pool(), clock, Duration.ofSeconds(90));
        List<OutboxRow> claimed = new ArrayList<>();
        List<OutboxRow> batch;
        while (!(batch = outbox.pending(10, clock.instant())).isEmpty()) {
            claimed.addAll(batch);
        }
        assertThat(PG.database().count("SELECT count(DISTINCT nodeport) FROM citus_shards s JOIN outbox o "
                + "ON s.shardid = get_shard_id_for_distribution_column('outbox', o.load_id)"))
                .as("the rows lie on both nodes").isEqualTo(2);
        // the shard of the first node's probe goes to the other node once half the rows are marked
        List<Outbox.Dispatched> sent = claimed.stream()
                .map(row -> new Outbox.Dispatched(row.outboxId(), row.claimToken(), "SM" + row.outboxId().hashCode())).toList();
        String staleOne = sent.getLast().outboxId();
        List<Outbox.Dispatched> first = new ArrayList<>(sent.subList(0, 12));
        List<Outbox.Dispatched> second = new ArrayList<>(sent.subList(12, sent.size() - 1));
        second.add(new Outbox.Dispatched(staleOne, UUID.randomUUID(), "SM-other-claim"));

        assertThat(outbox.markDispatchedAll(first)).as("every claim of the first half held").isEmpty();
        ProbeMove move = moveFirstProbesShard();
        Set<String> stale;
        try {
            stale = outbox.markDispatchedAll(second);
        } finally {
            move.back();
        }

        assertThat(stale).as("only the row whose claim is not the dispatcher's").containsExactly(staleOne);
        assertThat(PG.database().count("SELECT count(*) FROM outbox WHERE status = 'dispatched' AND receipt LIKE 'SM%'"
                + " AND claim_token IS NULL")).as("every other row dispatched with its receipt").isEqualTo(staged.size() - 1);
        assertThat(PG.database().rows("SELECT status, receipt FROM outbox WHERE outbox_id = ?", staleOne).getFirst())
                .as("the stale claim's row is left as it was").containsEntry("status", "pending").containsEntry("receipt", null);
    }

    @Test
    void aDispatchersTimersReachEveryNodeOnceWhereverTheirShardsWentAndACancelStillWins() {
        FakeClock clock = FakeClock.at(T0);
        PgTimerStore store = new CitusTimerStore(PG.pool(), clock, Duration.ofSeconds(90), Wakeups.NONE, null);
        List<Timer> timers = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            timers.add(Timer.schedule(TimerId.of("citus-timers-" + i, AskId.of("eta_request", "ping_0700"), 1),
                    T0.plus(Duration.ofMinutes(5)), "c-" + i));
        }
        List<TimerId> ids = timers.stream().map(Timer::timerId).toList();
        // three cancels overtake their schedules: they leave tombstones, and the late schedules create nothing
        assertThat(store.cancelAll(ids.subList(0, 3), T0)).as("the tombstones").containsExactlyInAnyOrderElementsOf(ids.subList(0, 3));
        assertThat(store.scheduleAll(timers.subList(0, 12))).as("the first half, but the tombstoned")
                .containsExactlyInAnyOrderElementsOf(ids.subList(3, 12));
        assertThat(PG.database().count("SELECT count(DISTINCT nodeport) FROM citus_shards s JOIN timers t "
                + "ON s.shardid = get_shard_id_for_distribution_column('timers', t.load_id)"))
                .as("the timers lie on both nodes").isEqualTo(2);

        // the shard of the first node's probe goes to the other node before the second half
        ProbeMove move = moveFirstProbesShard();
        Set<TimerId> created;
        Set<TimerId> cancelled;
        try {
            List<Timer> again = new ArrayList<>(timers.subList(12, 24));
            again.addAll(timers.subList(3, 6));
            created = store.scheduleAll(again);
            cancelled = store.cancelAll(ids.subList(9, 15), T0.plus(Duration.ofMinutes(1)));
        } finally {
            move.back();
        }

        assertThat(created).as("each new timer of the second half created once, none of the first again")
                .containsExactlyInAnyOrderElementsOf(ids.subList(12, 24));
        assertThat(cancelled).as("each scheduled timer cancelled").containsExactlyInAnyOrderElementsOf(ids.subList(9, 15));
        clock.advance(Duration.ofMinutes(5));
        assertThat(store.due(clock.instant(), 100)).extracting(Timer::timerId).as("what is left to fire, once each")
                .containsExactlyInAnyOrderElementsOf(Stream.concat(ids.subList(3, 9).stream(), ids.subList(15, 24).stream()).toList());
        assertThat(PG.database().count("SELECT count(*) FROM timers WHERE status = 'cancelled'")).as("nine cancelled").isEqualTo(9);
    }

    private static void claimInto(Map<String, Integer> claims, List<OutboxRow> rows) {
        rows.forEach(row -> claims.merge(row.outboxId(), 1, Integer::sum));
    }

    /** {@code n} due SMS rows, each of a load of its own; their ids. */
    private static List<String> stage(int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String load = "citus-claims-" + i;
            ids.add(load + "/ask:eta_request:ping_0700/1/send_sms");
        }
        PG.database().execute("""
                INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, attempts, available_at, created_at)
                SELECT 'citus-claims-' || i || '/ask:eta_request:ping_0700/1/send_sms', 'citus-claims-' || i, 'send_sms', 'sms',
                       '{}', 'pending', 0, '2026-12-02T06:59:00Z', '2026-12-02T06:59:00Z'
                FROM generate_series(0, %d) i""".formatted(n - 1));
        return ids;
    }

    /** A shard moved from one node to another, to be moved back. */
    private record ProbeMove(long shard, int from, int to) {
        void back() {
            ShardMoves.move(PG.database(), shard, to, from);
        }
    }

    /** Moves the outbox shard of the first node's probe to another node. */
    private static ProbeMove moveFirstProbesShard() {
        String probe = PG.database().rows("SELECT probe FROM loadflow_node_probes('outbox') AS probe LIMIT 1")
                .getFirst().get("probe").toString();
        long shard = ((Number) PG.database().rows("SELECT get_shard_id_for_distribution_column('outbox', ?) AS shard", probe)
                .getFirst().get("shard")).longValue();
        int from = port(shard);
        int to = ((Number) PG.database().rows("""
                SELECT nodeport FROM pg_dist_node WHERE shouldhaveshards AND isactive AND noderole = 'primary' AND nodeport <> ?
                ORDER BY nodeport LIMIT 1""", from).getFirst().get("nodeport")).intValue();
        ShardMoves.move(PG.database(), shard, from, to);
        return new ProbeMove(shard, from, to);
    }

    private static int port(long shard) {
        return ((Number) PG.database().rows("SELECT nodeport FROM citus_shards WHERE shardid = ?", shard)
                .getFirst().get("nodeport")).intValue();
    }
}
