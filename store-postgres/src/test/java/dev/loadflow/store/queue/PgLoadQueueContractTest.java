package dev.loadflow.store.queue;

import dev.loadflow.store.PgStores;
import dev.loadflow.store.audit.AdminAudit;
import dev.loadflow.store.audit.PgAdminAudit;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.pg.WakeupSignal;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.testing.Fixtures;
import dev.loadflow.testing.PgBackend;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;

public class PgLoadQueueContractTest extends LoadQueueContract {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("load_queue");

    /** The stores under test: PostgreSQL's (a backend of its own overrides this in its subclass of the suite). */
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new PgStores(PG.pool(), clock, wakeups);
    }

    @Override
    protected QueueBackend backend(Clock clock, Duration visibilityTimeout) {
        return new QueueBackend(loadQueue(clock, visibilityTimeout), new PgDeadLetters(PG.pool(), clock, PG.wakeups()),
                new PgQueueView(PG.pool()));
    }

    private LoadQueue loadQueue(Clock clock, Duration visibilityTimeout) {
        return stores(clock, PG.wakeups()).queue(visibilityTimeout, PG.notifications().signal(PgNotifications.QUEUE));
    }

    @Override
    protected AdminAudit audits() {
        return new PgAdminAudit(PG.pool());
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }

    /** Ingest's setting: a queue, the log beside it, and a load whose first ping is logged. */
    private record Ingest(FakeClock clock, PgEventStore events, LoadQueue queue, String load, InboundEvent logged) {
    }

    private Ingest ingestWithOneEventLogged() {
        FakeClock clock = FakeClock.at(Instant.parse("2026-11-30T07:00:00Z"));
        PgEventStore events = stores(clock, Wakeups.NONE).eventStore();
        String load = newLoadId();
        InboundEvent logged = Fixtures.ping(load, "ping_1", clock.instant());
        events.append(load, List.of(logged), 0, List.of());
        return new Ingest(clock, events, loadQueue(clock, Duration.ofMinutes(5)), load, logged);
    }

    /** Ingest's step in one statement: an event already logged is not queued, a new one is, once. */
    @Test
    void anEventIsQueuedUnlessItsLoadLoggedItAndOnlyOnce() {
        Ingest ingest = ingestWithOneEventLogged();
        LoadQueue queue = ingest.queue();
        InboundEvent fresh = Fixtures.ping(ingest.load(), "ping_2", ingest.clock().instant());

        assertThat(queue.enqueueUnlessLogged(QueueMessage.of(ingest.logged()), ingest.events())).isEqualTo(LoadQueue.Intake.LOGGED);
        assertThat(queue.enqueueUnlessLogged(QueueMessage.of(fresh), ingest.events())).isEqualTo(LoadQueue.Intake.QUEUED);
        assertThat(queue.enqueueUnlessLogged(QueueMessage.of(fresh), ingest.events())).isEqualTo(LoadQueue.Intake.ALREADY_QUEUED);

        assertThat(queue.receive(10, Duration.ZERO)).singleElement()
                .satisfies(m -> assertThat(m.messageId()).isEqualTo("ping_2"));
    }

    /** Ingest's group commit: each event of the batch ends as it would alone, in the batch's order. */
    @Test
    void aBatchOfIngestsEndsEachEventAsItWouldAlone() {
        Ingest ingest = ingestWithOneEventLogged();
        LoadQueue queue = ingest.queue();
        String load = ingest.load();
        Instant now = ingest.clock().instant();
        InboundEvent queuedBefore = Fixtures.ping(newLoadId(), "ping_1", now);
        queue.enqueue(QueueMessage.of(queuedBefore));
        InboundEvent fresh = Fixtures.ping(load, "ping_2", now);
        InboundEvent later = Fixtures.ping(load, "ping_3", now);

        List<LoadQueue.Intake> intakes = queue.enqueueAllUnlessLogged(List.of(QueueMessage.of(ingest.logged()),
                QueueMessage.of(fresh), QueueMessage.of(queuedBefore), QueueMessage.of(fresh), QueueMessage.of(later)),
                ingest.events());

        assertThat(intakes).containsExactly(LoadQueue.Intake.LOGGED, LoadQueue.Intake.QUEUED,
                LoadQueue.Intake.ALREADY_QUEUED, LoadQueue.Intake.ALREADY_QUEUED, LoadQueue.Intake.QUEUED);
        List<String> delivered = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            queue.receive(10, Duration.ZERO).forEach(m -> {
                delivered.add(m.loadId().equals(load) ? m.messageId() : "other " + m.messageId());
                queue.ack(m.receiptHandle());
            });
        }
        assertThat(delivered).as("the load's events once each, in the batch's order")
                .containsExactlyInAnyOrder("ping_2", "ping_3", "other ping_1");
        assertThat(delivered.indexOf("ping_2")).isLessThan(delivered.indexOf("ping_3"));
    }

    /**
     * No NOTIFY goes out for an ack, yet an ack can make a load's next message visible: this
     * instance's waiting long polls are woken at once instead of at their next look. (The signal
     * here is wired to nothing else, so only the queue itself can fire it.)
     */
    @Test
    void anAckThatLeavesALoadMoreWorkWakesTheLongPollsOfThisInstance() {
        WakeupSignal wakeup = new WakeupSignal();
        PgLoadQueue queue = stores(FakeClock.at(Instant.parse("2026-11-30T07:00:00Z")), Wakeups.NONE)
                .queue(Duration.ofMinutes(5), wakeup);
        String busy = newLoadId();
        String single = newLoadId();
        queue.enqueueAll(List.of(new QueueMessage(busy, "m1", "{}"), new QueueMessage(busy, "m2", "{}"),
                new QueueMessage(single, "s1", "{}")));
        List<ReceivedMessage> first = queue.receive(10, Duration.ZERO);
        ReceivedMessage m1 = first.stream().filter(m -> m.loadId().equals(busy)).findFirst().orElseThrow();
        ReceivedMessage s1 = first.stream().filter(m -> m.loadId().equals(single)).findFirst().orElseThrow();

        long seen = wakeup.generation();
        assertThat(queue.ack(s1.receiptHandle())).isTrue();
        assertThat(wakeup.generation()).as("nothing more for that load: nobody to wake").isEqualTo(seen);

        assertThat(queue.ackAll(List.of(m1.receiptHandle()))).isEqualTo(1);
        assertThat(wakeup.generation()).as("m2 is visible now").isGreaterThan(seen);
        assertThat(queue.receive(10, Duration.ZERO)).extracting(ReceivedMessage::messageId).containsExactly("m2");
    }

    /**
     * An ack finds its message by the id its delivery noted, in one primary-key lookup: the index
     * entries of the load's acked messages stay until a vacuum, and while another transaction's
     * snapshot may still see them (as under load) a walk to the load's head visits each one's row.
     * Found as the head, this ack read 1,561 buffers; by its id, 617, of which 609 are the group
     * row's own update (its primary key's uniqueness check visits the row's earlier versions).
     */
    @Test
    void anAckDoesNotWalkTheEntriesOfItsLoadsEarlierMessages() throws Exception {
        FakeClock clock = FakeClock.at(Instant.parse("2026-11-30T07:00:00Z"));
        PgLoadQueue queue = queueAt(clock);
        String load = newLoadId();
        ReceivedMessage[] last = new ReceivedMessage[1];
        long buffers = afterAcking300Messages(queue, load, () -> {
            last[0] = queue.receive(1, Duration.ZERO).getFirst();
            PgReceiptHandle handle = PgReceiptHandle.parse(last[0].receiptHandle());
            return buffers(Pg.await(PG.pool().preparedQuery(EXPLAIN + QueueStatements.ACK_ALL).execute(Tuple.tuple()
                    .addArrayOfUUID(new UUID[]{handle.uuid()}).addOffsetDateTime(Pg.at(clock.instant()))
                    .addArrayOfString(new String[]{load}).addArrayOfLong(new Long[]{handle.id()}))));
        });

        assertThat(last[0].messageId()).isEqualTo("m300");
        assertThat(buffers).as("buffers the ack of m300 read, 300 acked messages of its load before it").isLessThan(900);
        assertThat(queue.receive(10, Duration.ZERO)).as("m300 was acked").isEmpty();
    }

    @Test
    void aDeliveryDoesNotWalkTheEntriesOfItsLoadsEarlierMessages() throws Exception {
        FakeClock clock = FakeClock.at(Instant.parse("2026-11-30T07:00:00Z"));
        PgLoadQueue queue = queueAt(clock);
        String load = newLoadId();
        Tuple receive = Tuple.of(Pg.at(clock.instant()), 10, Pg.at(clock.instant().plusSeconds(300)), 1);
        // the function's statements are planned on a connection's first call (reading the catalogs):
        // that call is rolled back, and the next on the same connection measured, once with plans
        // made for the call's values and once with the generic plans a session settles on after
        // five calls; the least of three counts for each (a schema change elsewhere on the server,
        // as another suite's migration on a shared Citus cluster, can make one call plan again)
        Map<String, Long> buffersByPlan = afterAcking300Messages(queue, load, () -> Pg.await(PG.pool().withTransaction(conn -> {
            Map<String, Long> measured = new ConcurrentHashMap<>();
            Future<?> calls = conn.query("SAVEPOINT planned").execute();
            for (String plans : List.of("force_custom_plan", "force_generic_plan")) {
                calls = calls.compose(before -> conn.query("SET LOCAL plan_cache_mode = " + plans).execute());
                for (int call = 0; call < 4; call++) {
                    boolean first = call == 0;
                    calls = calls.compose(before -> conn.preparedQuery(EXPLAIN + QueueStatements.RECEIVE).execute(receive))
                            .compose(explained -> {
                                if (!first) {
                                    measured.merge(plans, buffers(explained), Math::min);
                                }
                                return conn.query("ROLLBACK TO SAVEPOINT planned").execute();
                            });
                }
            }
            return calls.compose(measuredAll -> conn.preparedQuery(QueueStatements.RECEIVE).execute(receive)).map(delivered -> measured);
        })));

        assertThat(Pg.await(PG.pool().preparedQuery("SELECT message_id FROM load_queue WHERE load_id = $1 AND receipt_handle IS NOT NULL")
                .execute(Tuple.of(load))).iterator().next().getString("message_id")).as("the message delivered").isEqualTo("m300");
        assertThat(buffersByPlan).as("buffers the receive of m300 read (its lock and delivery) by plan, 300 acked messages of its load before it")
                .containsOnlyKeys("force_custom_plan", "force_generic_plan")
                .allSatisfy((plans, buffers) -> assertThat(buffers).as(plans).isLessThan(100));
        // 484 when the head was looked for from the load's first id; 517 under either plan when the
        // delivery's update looked for the head again among its load's entries (before V33)
    }

    /** A queue of its own on {@code clock} (5-minute visibility), woken by nothing: receives with no wait. */
    private PgLoadQueue queueAt(FakeClock clock) {
        return stores(clock, Wakeups.NONE).queue(Duration.ofMinutes(5), new WakeupSignal());
    }

    private static final String EXPLAIN = "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ";

    /**
     * Queues m0 to m300 for {@code load}, receives and acks m0 to m299 while another
     * transaction's snapshot still sees them (their rows not dead to all, as under load), takes
     * the tables' statistics as autovacuum would (they then count one live message: a plan that
     * believed them and found a message among its load's entries would visit all 300 acked ones),
     * then runs {@code measure} under that snapshot.
     */
    private static <T> T afterAcking300Messages(LoadQueue queue, String load, Supplier<T> measure) throws Exception {
        List<QueueMessage> messages = new ArrayList<>();
        for (int i = 0; i <= 300; i++) {
            messages.add(new QueueMessage(load, "m" + i, "{}"));
        }
        queue.enqueueAll(messages);
        var db = PG.database();
        try (Connection reader = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
             Statement snapshot = reader.createStatement()) {
            snapshot.execute("BEGIN ISOLATION LEVEL REPEATABLE READ");
            snapshot.execute("SELECT 1");
            for (int i = 0; i < 300; i++) {
                assertThat(queue.ack(queue.receive(1, Duration.ZERO).getFirst().receiptHandle())).isTrue();
            }
            Pg.await(PG.pool().query("ANALYZE load_queue, load_queue_group").execute());
            T measured = measure.get();
            snapshot.execute("ROLLBACK");
            return measured;
        }
    }

    /** The buffers an {@link #EXPLAIN}'s statement read, at its top node. */
    private static long buffers(RowSet<Row> explained) {
        JsonArray plan = explained.iterator().next().getJsonArray(0);
        var top = plan.getJsonObject(0).getJsonObject("Plan");
        return top.getLong("Shared Hit Blocks") + top.getLong("Shared Read Blocks");
    }
    @Test
    void aHandleNamesItsMessageAndItsLoadAndNothingElseActsOnTheDelivery() {
        FakeClock clock = FakeClock.at(Instant.parse("2026-11-30T07:00:00Z"));
        PgLoadQueue queue = queueAt(clock);
        String load = newLoadId();
        queue.enqueueAll(List.of(new QueueMessage(load, "m0", "{}"), new QueueMessage(load, "m1", "{}")));

        ReceivedMessage zeroth = queue.receive(1, Duration.ZERO).getFirst();
        assertThat(zeroth.receiptHandle()).matches("[0-9a-f-]{36}/[0-9]+:" + load);
        String uuid = zeroth.receiptHandle().substring(0, 36);
        String otherLoad = zeroth.receiptHandle().substring(0, zeroth.receiptHandle().indexOf(':') + 1) + newLoadId();
        assertThat(List.of(uuid + ":" + load, uuid, otherLoad, "not-a-handle"))
                .as("the delivery's uuid without the message, alone, or with another load")
                .allSatisfy(handle -> {
                    assertThat(queue.ack(handle)).as(handle).isFalse();
                    assertThat(queue.release(handle, Duration.ZERO)).as(handle).isFalse();
                    assertThat(queue.park(handle, "no")).as(handle).isFalse();
                });
        assertThat(queue.receive(10, Duration.ZERO)).as("still in flight").isEmpty();

        assertThat(queue.ackAll(List.of(otherLoad, zeroth.receiptHandle()))).isEqualTo(1);
        assertThat(queue.receive(1, Duration.ZERO)).extracting(ReceivedMessage::messageId).containsExactly("m1");
    }

    @Test
    void aDeliveryRewritesItsGroupInPlace() {
        FakeClock clock = FakeClock.at(Instant.parse("2026-11-30T07:00:00Z"));
        PgLoadQueue queue = queueAt(clock);
        String load = newLoadId();
        queue.enqueueAll(List.of(new QueueMessage(load, "m1", "{}")));

        UpdateCounts counts = groupUpdatesOf(conn -> conn.preparedQuery(QueueStatements.RECEIVE)
                .execute(Tuple.of(Pg.at(clock.instant()), 10, Pg.at(clock.instant().plusSeconds(300)), 1)));

        assertThat(counts.updated()).as("the group's row updated by the delivery").isEqualTo(1);
        assertThat(counts.inPlace()).as("in place: no new index entry").isEqualTo(1);
        assertThat(queue.receive(10, Duration.ZERO)).as("the group is in flight").isEmpty();
        clock.advance(Duration.ofMinutes(5));
        assertThat(queue.receive(10, Duration.ZERO)).as("its visibility timeout ended").extracting(ReceivedMessage::messageId)
                .containsExactly("m1");
    }

    /**
     * A receive deletes a group it finds empty. Here producers enqueue while consumers drain, one
     * message at a time per load, so groups are emptied and made anew all the time: a message
     * whose enqueue committed between a receive's locking of its group and the group's deletion
     * would be left without a group, never delivered. The delivery reads on a snapshot taken after
     * the locks (load_queue_receive runs its two statements one after the other): none is lost.
     * A receive in one statement, reading the heads on the snapshot it locked with, failed this
     * in one run of two (messages left without a group).
     */
    @Test
    void messagesEnqueuedWhileConsumersEmptyTheirGroupsAreAllDelivered() throws Exception {
        PgLoadQueue queue = queueAt(FakeClock.at(Instant.parse("2026-11-30T07:00:00Z")));
        int perLoad = 600;
        List<String> loads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            loads.add(newLoadId());
        }
        Map<String, List<String>> delivered = new ConcurrentHashMap<>();
        AtomicInteger acked = new AtomicInteger();
        int total = loads.size() * perLoad;
        List<Callable<Void>> work = new ArrayList<>();
        for (List<String> own : List.of(loads.subList(0, 4), loads.subList(4, 8))) {
            work.add(() -> {
                for (String messageId : numbered(perLoad)) {
                    for (String load : own) {
                        queue.enqueue(new QueueMessage(load, messageId, "{}"));
                    }
                }
                return null;
            });
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        for (int c = 0; c < 3; c++) {
            work.add(() -> {
                while (acked.get() < total && System.nanoTime() < deadline) {
                    for (ReceivedMessage m : queue.receive(4, Duration.ZERO)) {
                        delivered.computeIfAbsent(m.loadId(), k -> Collections.synchronizedList(new ArrayList<>()))
                                .add(m.messageId());
                        if (queue.ack(m.receiptHandle())) {
                            acked.incrementAndGet();
                        }
                    }
                }
                return null;
            });
        }
        runTogether(work);

        assertThat(Pg.await(PG.pool().query("""
                SELECT count(*) AS orphans FROM load_queue q
                WHERE NOT EXISTS (SELECT 1 FROM load_queue_group g WHERE g.load_id = q.load_id)""").execute())
                .iterator().next().getLong("orphans")).as("messages left without a group").isZero();
        assertThat(acked.get()).as("messages delivered and acked within a minute").isEqualTo(total);
        assertThat(delivered).hasSize(loads.size());
        assertThat(delivered.values()).allSatisfy(order -> assertThat(order).containsExactlyElementsOf(numbered(perLoad)));
        assertThat(new PgQueueView(PG.pool()).stats().depth()).isZero();
    }

    /** How many rows of load_queue_group statements updated, and how many of them in place (HOT). */
    private record UpdateCounts(long updated, long inPlace) {

        static final String READ = """
                SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relid = 'load_queue_group'::regclass""";

        static UpdateCounts of(RowSet<Row> rows) {
            Row row = rows.iterator().next();
            return new UpdateCounts(row.getLong("n_tup_upd"), row.getLong("n_tup_hot_upd"));
        }
    }

    /**
     * Runs {@code work} in a transaction of its own and counts its updates of load_queue_group:
     * the backend's counts read before and after it, in it (they may hold an earlier
     * transaction's counts not yet reported, the same in both).
     */
    private static UpdateCounts groupUpdatesOf(Function<SqlConnection, Future<?>> work) {
        return Pg.await(PG.pool().withTransaction(conn -> conn.query(UpdateCounts.READ).execute()
                .compose(before -> work.apply(conn)
                        .compose(done -> conn.query(UpdateCounts.READ).execute())
                        .map(after -> {
                            UpdateCounts from = UpdateCounts.of(before);
                            UpdateCounts to = UpdateCounts.of(after);
                            return new UpdateCounts(to.updated() - from.updated(), to.inPlace() - from.inPlace());
                        }))));
    }
}
