package dev.loadflow.worker.hold;

import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.MessageSkipped;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.policy.Decision;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.queue.HeldLoad;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.PgHeldLoads;
import dev.loadflow.store.queue.QueueBackend;
import dev.loadflow.store.queue.QueueMessage;
import dev.loadflow.testing.PgBackend;
import dev.loadflow.worker.consume.QueueConsumer;
import dev.loadflow.worker.run.LoadRun;
import dev.loadflow.worker.run.WorkerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * Poison holds its load, on a real queue and a real database: the consumer, the gate and an
 * operator's repairs as the worker wires them. A held head is rechecked only every ten minutes
 * here, so whatever moves after a retry or a skip moved because the repair woke it.
 */
abstract class PoisonHoldTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("poison_hold");

    private static final Duration RECHECK = Duration.ofMinutes(10);
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final Clock clock = Clock.systemUTC();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final WorkerMetrics metrics = new WorkerMetrics(registry);
    /** The fault an operator fixes: while set, the policy throws on every event named "bad". */
    private final AtomicBoolean broken = new AtomicBoolean(true);
    private final AtomicInteger badRuns = new AtomicInteger();
    /** A load whose head, once its hold is written, is fixed and retried by an operator before the worker lets go of it. */
    private final AtomicReference<String> retriedWhileInHand = new AtomicReference<>();
    private EventStore events;
    private HeldLoads held;
    private HeldRepairs repairs;
    LoadQueue queue;
    private QueueBackend backend;
    private QueueConsumer consumer;

    /** The queue under test, on the test's database. */
    abstract QueueBackend queue(Pool pool, Clock clock);

    /** Whether the queue counts the messages waiting behind a load's head. */
    abstract boolean countsWaiting();

    /**
     * How many messages of a load a batch takes: the default ({@code loadflow.worker.per-load}
     * unset) on either queue, so a held head's run brings the messages waiting behind it each
     * time it is handed out, and none of them may be counted as delivered.
     */
    private static final int PER_LOAD = 10;

    @BeforeEach
    void setUp() {
        events = new PgEventStore(PG.pool(), clock, PG.wakeups());
        backend = queue(PG.pool(), clock);
        queue = backend.queue();
        held = new PgHeldLoads(PG.pool(), clock);
        repairs = new HeldRepairs(held, queue, clock);
        LoadRun run = LoadRun.builder(events, (event, state, now) -> {
            if (event.eventId().equals("bad") && broken.get()) {
                badRuns.incrementAndGet();
                throw new IllegalStateException("no SOP for this client yet");
            }
            return Decision.noop("ok " + event.eventId());
        }, clock).metrics(metrics).build();
        PoisonGate gate = new PoisonGate(queue, retryingRightAfterTheHold(held), new PoisonGate.Settings(PoisonGate.OnPoison.HOLD, 2, RECHECK),
                metrics, clock);
        consumer = new QueueConsumer(queue, run, gate, metrics,
                new QueueConsumer.Settings(4, 4, PER_LOAD, Duration.ofMillis(5), Duration.ofMillis(200), Duration.ofSeconds(10),
                        Duration.ofMillis(20), Duration.ofSeconds(30)), QueueConsumer.DatabaseProbe.selectOne(PG.pool()), clock);
        consumer.start();
    }

    @AfterEach
    void tearDown() {
        consumer.stop(Duration.ofSeconds(5));
    }

    @Test
    void poisonHoldsItsLoadWhileAnotherLoadFlows() {
        String stuck = newLoadId();
        String flowing = newLoadId();
        send(stuck, "bad");
        send(stuck, "after_1");
        send(stuck, "after_2");

        HeldLoad hold = awaitHeld(stuck);
        send(flowing, "other_1");
        send(flowing, "other_2");

        await().atMost(WAIT).until(() -> entryIds(flowing).size() == 4);
        assertThat(hold.messageId()).isEqualTo("bad");
        assertThat(hold.messageType()).isEqualTo("InboundSms");
        assertThat(hold.reason()).isEqualTo("delivered 3 times without success");
        assertThat(hold.state()).isEqualTo(HeldLoad.State.HELD);
        assertThat(badRuns).as("run max-deliveries times, then held without running").hasValue(2);
        assertThat(events.read(stuck).version()).as("the held load's later messages wait").isZero();
        assertThat(backend.deadLetters().parked(10)).as("nothing parked out of order").isEmpty();
        assertThat(registry.get("loadflow.worker.held").counter().count()).isEqualTo(1);
        if (countsWaiting()) {
            assertThat(backend.view().waiting(List.of(stuck))).containsEntry(stuck, 2);
        }
    }

    @Test
    void aRetryAfterTheFixRunsTheHeadThenTheWaitingMessagesInOrder() {
        String load = newLoadId();
        send(load, "bad");
        send(load, "after_1");
        send(load, "after_2");
        awaitHeld(load);

        broken.set(false);
        HeldRepairs.Result result = repairs.retry(load, audit("load.retry", load));

        assertThat(result).isInstanceOfSatisfying(HeldRepairs.Done.class,
                done -> assertThat(done.held().state()).isEqualTo(HeldLoad.State.RETRY));
        await().atMost(WAIT).until(() -> entryIds(load).size() == 6);
        assertThat(entryIds(load)).containsExactly("bad", "dec:bad", "after_1", "dec:after_1", "after_2", "dec:after_2");
        await().atMost(WAIT).until(() -> held.list(100).stream().noneMatch(h -> h.loadId().equals(load)));
        assertThat(auditActions(load)).containsExactly("load.retry");
    }

    @Test
    void aRetryThatFailsAgainHoldsTheLoadAgainWithTheNewReason() {
        String load = newLoadId();
        send(load, "bad");
        send(load, "after_1");
        HeldLoad first = awaitHeld(load);

        repairs.retry(load, audit("load.retry", load));

        await().atMost(WAIT).until(() -> badRuns.get() == 3);
        await().atMost(WAIT).until(() -> held(load).filter(h -> h.state() == HeldLoad.State.HELD).isPresent());
        HeldLoad again = held(load).orElseThrow();
        assertThat(again.reason()).startsWith("retry failed:").contains("no SOP for this client yet");
        assertThat(again.since()).as("held since the first time").isEqualTo(first.since());
        assertThat(events.read(load).version()).isZero();
    }

    @Test
    void aSkipLogsMessageSkippedInTheHeadsPlaceAndTheRestFollowInOrder() {
        String load = newLoadId();
        queue.enqueue(new QueueMessage(load, "garbled", "{\"eventId\": \"garbled\"}"));
        send(load, "after_1");
        send(load, "after_2");
        HeldLoad hold = awaitHeld(load);
        assertThat(hold.messageType()).isEqualTo(HeldLoad.UNREADABLE);
        assertThat(hold.reason()).startsWith("unreadable message");

        HeldRepairs.Result result = repairs.skip(load, "garbled by the gateway; resent as after_1",
                audit("load.skip", load));

        assertThat(result).isInstanceOf(HeldRepairs.Done.class);
        await().atMost(WAIT).until(() -> entryIds(load).size() == 5);
        assertThat(entryIds(load)).containsExactly("garbled", "after_1", "dec:after_1", "after_2", "dec:after_2");
        assertThat(events.read(load).entries().getFirst().entry()).isInstanceOfSatisfying(MessageSkipped.class, skip -> {
            assertThat(skip.messageType()).isEqualTo(HeldLoad.UNREADABLE);
            assertThat(skip.principal()).isEqualTo("ops@example.com");
            assertThat(skip.reason()).isEqualTo("garbled by the gateway; resent as after_1");
        });
        await().atMost(WAIT).until(() -> held(load).isEmpty());
        assertThat(repairs.skip(load, "again", audit("load.skip", load))).as("the hold is over")
                .isInstanceOf(HeldRepairs.NotHeld.class);
        assertThat(auditActions(load)).containsExactly("load.skip");
    }

    /**
     * An unreadable message queued behind good ones of its load: the good ones run (on
     * PostgreSQL in the same batch, as one run of the load), then it holds the load, and the
     * message behind it waits. It was not judged while the messages before it were running.
     */
    @Test
    void poisonBehindGoodMessagesHoldsTheLoadOnlyAfterThem() {
        String load = newLoadId();
        send(load, "ok_1");
        send(load, "ok_2");
        queue.enqueue(new QueueMessage(load, "garbled", "{\"eventId\": \"garbled\"}"));
        send(load, "after");

        HeldLoad hold = awaitHeld(load);

        assertThat(hold.messageId()).isEqualTo("garbled");
        assertThat(entryIds(load)).containsExactly("ok_1", "dec:ok_1", "ok_2", "dec:ok_2");
        if (countsWaiting()) {
            assertThat(backend.view().waiting(List.of(load))).containsEntry(load, 1);
        }
    }

    @Test
    void aSkippedReadableHeadIsNeverRunAfterwards() {
        String load = newLoadId();
        send(load, "bad");
        send(load, "after_1");
        awaitHeld(load);
        broken.set(false);

        repairs.skip(load, "duplicate of a message already handled by hand", audit("load.skip", load));

        await().atMost(WAIT).until(() -> entryIds(load).size() == 3);
        assertThat(entryIds(load)).containsExactly("bad", "after_1", "dec:after_1");
        assertThat(badRuns).as("the skipped head did not run again, though its fault is fixed").hasValue(2);
    }

    private void send(String load, String eventId) {
        Instant now = clock.instant();
        queue.enqueue(QueueMessage.of(new InboundEvent(eventId, load, now, now, "c-" + eventId, null,
                new EventPayload.InboundSms("+15550100", "text " + eventId))));
    }

    @Test
    void aRetryWhileTheHeldHeadIsStillInHandRunsItWithoutWaitingForTheRecheck() {
        String load = newLoadId();
        retriedWhileInHand.set(load);
        send(load, "bad");
        send(load, "after_1");

        // the retry's wake came while the worker still had the head: the head runs now, not after
        // the ten-minute recheck
        await().atMost(WAIT).until(() -> entryIds(load).size() == 4);
        assertThat(entryIds(load)).containsExactly("bad", "dec:bad", "after_1", "dec:after_1");
        assertThat(auditActions(load)).containsExactly("load.retry");
    }

    /** {@code held} as the gate sees it: a hold of the load in {@link #retriedWhileInHand} is fixed and retried at once. */
    private HeldLoads retryingRightAfterTheHold(HeldLoads held) {
        return (HeldLoads) Proxy.newProxyInstance(HeldLoads.class.getClassLoader(),
                new Class<?>[]{HeldLoads.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(held, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("hold") && args[0] instanceof HeldLoad hold
                            && hold.loadId().equals(retriedWhileInHand.get())) {
                        retriedWhileInHand.set(null);
                        broken.set(false);
                        assertThat(repairs.retry(hold.loadId(), audit("load.retry", hold.loadId()))).isInstanceOf(HeldRepairs.Done.class);
                    }
                    return result;
                });
    }

    private HeldLoad awaitHeld(String load) {
        await().atMost(WAIT).until(() -> held(load).isPresent());
        return held(load).orElseThrow();
    }

    private Optional<HeldLoad> held(String load) {
        return Optional.ofNullable(held.among(List.of(load)).get(load));
    }

    private List<String> entryIds(String load) {
        return events.read(load).entries().stream().map(RecordedEntry::entry).map(e -> e.entryId()).toList();
    }

    private static AuditRecord audit(String action, String load) {
        return new AuditRecord("ops@example.com", "load-worker", action, load, "{}");
    }

    private static List<String> auditActions(String load) {
        return PG.database().rows("SELECT action FROM admin_audit WHERE target = ? ORDER BY id", load).stream()
                .map(row -> (String) row.get("action")).toList();
    }
}
