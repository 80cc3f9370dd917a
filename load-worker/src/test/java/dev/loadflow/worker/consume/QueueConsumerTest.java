package dev.loadflow.worker.consume;

import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.policy.Decision;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.queue.DeadLetters;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.PgDeadLetters;
import dev.loadflow.store.queue.PgHeldLoads;
import dev.loadflow.store.queue.PgLoadQueue;
import dev.loadflow.store.queue.PgQueueView;
import dev.loadflow.store.queue.QueueMessage;
import dev.loadflow.store.queue.QueueView;
import dev.loadflow.testing.PgBackend;
import dev.loadflow.worker.hold.PoisonGate;
import dev.loadflow.worker.run.LoadRun;
import dev.loadflow.worker.run.WorkerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * The consumer loop on real PostgreSQL, with policies that fail, hang or crawl: messages are
 * acked only after their append, failures come back with backoff, poison is parked (with
 * {@code on-poison=skip}), and a shutdown loses nothing.
 */
class QueueConsumerTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("consumer");

    private final Clock clock = Clock.systemUTC();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final WorkerMetrics metrics = new WorkerMetrics(registry);
    private EventStore events;
    private LoadQueue queue;
    private DeadLetters deadLetters;
    private QueueView view;
    private QueueConsumer consumer;

    @BeforeEach
    void setUp() {
        PG.database().truncateAll();
        events = new PgEventStore(PG.pool(), clock, PG.wakeups());
        queue = new PgLoadQueue(PG.pool(), clock, Duration.ofMinutes(5), PG.notifications().signal(PgNotifications.QUEUE), PG.wakeups());
        deadLetters = new PgDeadLetters(PG.pool(), clock, PG.wakeups());
        view = new PgQueueView(PG.pool());
    }

    @AfterEach
    void tearDown() {
        if (consumer != null) {
            consumer.stop(Duration.ofSeconds(5));
        }
    }

    private QueueConsumer start(DecisionPolicy policy, Duration runDeadline) {
        LoadRun run = LoadRun.builder(events, policy, clock).metrics(metrics).build();
        // on-poison=skip: poison is parked and the load goes on (PoisonHoldTest shows the default, hold)
        PoisonGate gate = new PoisonGate(queue, new PgHeldLoads(PG.pool(), clock),
                new PoisonGate.Settings(PoisonGate.OnPoison.SKIP, 3, Duration.ofMinutes(1)), metrics, clock);
        consumer = new QueueConsumer(queue, run, gate, metrics,
                new QueueConsumer.Settings(4, 4, 4, Duration.ofMillis(5), Duration.ofMillis(200), runDeadline, Duration.ofMillis(20),
                        Duration.ofSeconds(30)),
                QueueConsumer.DatabaseProbe.selectOne(PG.pool()), clock);
        consumer.start();
        return consumer;
    }

    private void send(String load, String eventId) {
        Instant now = clock.instant();
        queue.enqueue(QueueMessage.of(new InboundEvent(eventId, load, now, now, "c-1", null,
                new EventPayload.InboundSms("+15550100", "hello " + eventId))));
    }

    private double runs(String result) {
        return registry.get("loadflow.worker.runs").tag("result", result).counter().count();
    }

    @Test
    void messagesOfManyLoadsAreRunAndAckedAfterTheirAppend() {
        start((event, state, now) -> Decision.noop("ok"), Duration.ofSeconds(10));
        for (int i = 0; i < 20; i++) {
            String load = "load-many-" + i;
            send(load, "a");
            send(load, "b");
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> view.stats().depth() == 0);

        for (int i = 0; i < 20; i++) {
            assertThat(events.read("load-many-" + i).version()).isEqualTo(4);
        }
        assertThat(runs("decided")).isEqualTo(40);
    }

    /**
     * A busy load's backlog (a device's hour of pings replayed at once) is taken several
     * messages at a time, in order; a run that fails part way gives back its message and those
     * behind it, and the load still ends with every event logged once, in the order queued.
     */
    @Test
    void aBusyLoadsBacklogRunsSeveralMessagesAtATimeInOrder() {
        String load = newLoadId();
        AtomicInteger failures = new AtomicInteger();
        start((event, state, now) -> {
            if (event.eventId().equals("e123") && failures.getAndIncrement() == 0) {
                throw new IllegalStateException("the policy's store blinked");
            }
            return Decision.noop("ok");
        }, Duration.ofSeconds(10));
        List<String> ids = new ArrayList<>();
        List<QueueMessage> backlog = new ArrayList<>();
        Instant now = clock.instant();
        for (int i = 0; i < 300; i++) {
            String id = String.format("e%03d", i);
            ids.add(id);
            backlog.add(QueueMessage.of(new InboundEvent(id, load, now, now, "c-1", null,
                    new EventPayload.InboundSms("+15550100", "ping " + id))));
        }
        queue.enqueueAll(backlog);

        await().atMost(Duration.ofSeconds(60)).until(() -> view.stats().depth() == 0);

        assertThat(events.read(load).entries()).extracting(e -> e.entry().entryId())
                .containsExactlyElementsOf(ids.stream().flatMap(id -> java.util.stream.Stream.of(id, "dec:" + id)).toList());
        assertThat(failures).as("e123 decided twice: failed, then run again").hasValue(2);
        assertThat(registry.get("loadflow.worker.batch.size").summary().max()).as("messages of the one load per receive")
                .isEqualTo(4);
        assertThat(runs("failed")).isEqualTo(1);
    }

    @Test
    void withOnPoisonSkipAFailingRunIsRedeliveredWithBackoffThenParkedAndTheLoadGoesOn() {
        String load = newLoadId();
        AtomicInteger attempts = new AtomicInteger();
        start((event, state, now) -> {
            if (event.eventId().equals("bad")) {
                attempts.incrementAndGet();
                throw new IllegalStateException("policy blew up");
            }
            return Decision.noop("ok");
        }, Duration.ofSeconds(10));
        send(load, "bad");
        send(load, "good");

        await().atMost(Duration.ofSeconds(30)).until(() -> events.read(load).version() == 2);

        assertThat(attempts).hasValue(3);
        assertThat(deadLetters.parked(10)).singleElement().satisfies(p -> {
            assertThat(p.messageId()).isEqualTo("bad");
            assertThat(p.reason()).contains("delivered 4 times");
        });
        assertThat(events.contains(load, "good")).isTrue();
        assertThat(events.contains(load, "bad")).isFalse();
        assertThat(runs("failed")).isEqualTo(3);
        assertThat(registry.get("loadflow.worker.parked").counter().count()).isEqualTo(1);
    }

    @Test
    void withOnPoisonSkipAnUnreadableMessageIsParkedNotDropped() {
        String load = newLoadId();
        start((event, state, now) -> Decision.noop("ok"), Duration.ofSeconds(10));
        queue.enqueue(new QueueMessage(load, "garbled", "{\"eventId\": \"garbled\"}"));
        send(load, "after");

        await().atMost(Duration.ofSeconds(30)).until(() -> events.read(load).version() == 2);

        assertThat(deadLetters.parked(10)).singleElement().satisfies(p -> {
            assertThat(p.messageId()).isEqualTo("garbled");
            assertThat(p.reason()).startsWith("unreadable message");
        });
    }

    @Test
    void aRunPastItsDeadlineIsAbandonedAndItsMessageComesBack() {
        String load = newLoadId();
        AtomicInteger calls = new AtomicInteger();
        start((event, state, now) -> {
            if (calls.incrementAndGet() == 1) {
                sleep(Duration.ofSeconds(30));
            }
            return Decision.noop("second try");
        }, Duration.ofMillis(500));
        send(load, "slow");

        await().atMost(Duration.ofSeconds(30)).until(() -> events.read(load).version() == 2);

        assertThat(calls.get()).isGreaterThanOrEqualTo(2);
        assertThat(view.stats().depth()).isZero();
    }

    @Test
    void shutdownWaitsForRunsWithinTheGracePeriod() {
        String load = newLoadId();
        CountDownLatch started = new CountDownLatch(1);
        start((event, state, now) -> {
            started.countDown();
            sleep(Duration.ofMillis(500));
            return Decision.noop("finished during shutdown");
        }, Duration.ofSeconds(10));
        send(load, "finishing");
        await().atMost(Duration.ofSeconds(10)).until(() -> started.getCount() == 0);

        assertThat(consumer.stop(Duration.ofSeconds(10))).isTrue();

        assertThat(events.read(load).version()).isEqualTo(2);
        assertThat(view.stats().depth()).isZero();
        consumer = null;
    }

    @Test
    void shutdownAbandonsRunsPastTheGracePeriodAndLosesNothing() {
        String load = newLoadId();
        CountDownLatch started = new CountDownLatch(1);
        start((event, state, now) -> {
            started.countDown();
            sleep(Duration.ofMinutes(5));
            return Decision.noop("never");
        }, Duration.ofMinutes(1));
        send(load, "stuck");
        await().atMost(Duration.ofSeconds(10)).until(() -> started.getCount() == 0);

        assertThat(consumer.stop(Duration.ofMillis(300))).isFalse();

        assertThat(events.read(load).version()).isZero();
        assertThat(queue.receive(1, Duration.ZERO)).as("given back, visible at once")
                .singleElement().satisfies(m -> assertThat(m.messageId()).isEqualTo("stuck"));
        consumer = null;
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
