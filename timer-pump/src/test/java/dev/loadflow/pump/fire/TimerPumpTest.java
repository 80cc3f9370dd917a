package dev.loadflow.pump.fire;

import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.eventlog.DuplicateEntryException;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.pg.WakeupSignal;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.PgLoadQueue;
import dev.loadflow.store.queue.ReceivedMessage;
import dev.loadflow.store.timer.PgTimerStore;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.store.timer.TimerStatus;
import dev.loadflow.store.timer.TimerStore;
import dev.loadflow.testing.PgBackend;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The pump's crash and race behaviour on real PostgreSQL, driven by a FakeClock. */
class TimerPumpTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("pump");

    private static final Instant T0 = Instant.parse("2026-11-30T07:31:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final AskId ASK = AskId.of("eta_request", "ping_0700");

    private final FakeClock clock = FakeClock.at(T0);
    private TimerStore timers;
    private LoadQueue queue;
    private EventStore events;

    @BeforeEach
    void setUp() {
        PG.database().truncateAll();
        timers = new PgTimerStore(PG.pool(), clock, LEASE, PG.wakeups());
        queue = new PgLoadQueue(PG.pool(), clock, Duration.ofMinutes(5), PG.notifications().signal(PgNotifications.QUEUE), PG.wakeups());
        events = new PgEventStore(PG.pool(), clock, PG.wakeups());
    }

    private TimerPump pump(TimerStore store, LoadQueue to) {
        return new TimerPump(store, to, clock, new WakeupSignal(), 100, Duration.ofSeconds(30), Duration.ofSeconds(30),
                new PumpMetrics(new SimpleMeterRegistry()));
    }

    /** What the load worker does with the queue here: log each event once, ack every delivery. */
    private int drainIntoTheLog() {
        int deliveries = 0;
        List<ReceivedMessage> received;
        while (!(received = queue.receive(10, Duration.ZERO)).isEmpty()) {
            for (ReceivedMessage message : received) {
                InboundEvent event = message.event();
                try {
                    events.append(event.loadId(), List.of(event), events.read(event.loadId()).version(), List.of());
                } catch (DuplicateEntryException alreadyLogged) {
                    // the event store drops the copy
                }
                queue.ack(message.receiptHandle());
                deliveries++;
            }
        }
        return deliveries;
    }

    @Test
    void aPublishFollowedByACrashBeforeTheMarkFiresAgainAfterTheLeaseAndTheLogHoldsOneTimerFired() {
        String load = newLoadId();
        TimerId id = TimerId.of(load, ASK, 1);
        timers.schedule(Timer.schedule(id, T0, "c-1"));
        TimerStore crashesOnMark = (TimerStore) Proxy.newProxyInstance(TimerStore.class.getClassLoader(),
                new Class<?>[]{TimerStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("markFired")) {
                        throw new IllegalStateException("the pump process died here");
                    }
                    return method.invoke(timers, args);
                });

        assertThatThrownBy(() -> pump(crashesOnMark, queue).pumpOnce()).hasMessageContaining("died");
        assertThat(drainIntoTheLog()).isEqualTo(1);
        assertThat(timers.find(id).orElseThrow().status()).isEqualTo(TimerStatus.SCHEDULED);

        TimerPump restarted = pump(timers, queue);
        assertThat(restarted.pumpOnce()).as("still claimed by the dead pump").isZero();
        clock.advance(LEASE);
        assertThat(restarted.pumpOnce()).isEqualTo(1);
        assertThat(drainIntoTheLog()).as("the second publish was delivered too").isEqualTo(1);

        assertThat(timers.find(id).orElseThrow().status()).isEqualTo(TimerStatus.FIRED);
        assertThat(events.read(load).entries()).singleElement()
                .satisfies(e -> assertThat(e.entry().entryId()).isEqualTo("evt:" + id));
    }

    @Test
    void threePumpsOverTenThousandTimersDueWithinOneMinuteFireEachExactlyOnce() throws Exception {
        PG.database().execute("""
                INSERT INTO timers (timer_id, load_id, ask_id, attempt, fire_at, status, created_at)
                SELECT 'tmr:bulk-' || (i / 10) || ':ask:eta_request:ping_0700:' || (i % 10 + 1), 'bulk-' || (i / 10),
                       'ask:eta_request:ping_0700', i % 10 + 1,
                       timestamptz '2026-11-30 07:31:00+00' + (i % 60000) * interval '1 millisecond',
                       'scheduled', timestamptz '2026-11-30 07:01:00+00'
                FROM generate_series(0, 9999) i""");
        clock.set(T0.plusSeconds(60));
        Map<String, AtomicInteger> published = new ConcurrentHashMap<>();
        LoadQueue counting = (LoadQueue) Proxy.newProxyInstance(LoadQueue.class.getClassLoader(),
                new Class<?>[]{LoadQueue.class}, (proxy, method, args) -> {
                    if (method.getName().equals("enqueue")) {
                        published.computeIfAbsent(((dev.loadflow.store.queue.QueueMessage) args[0]).messageId(),
                                k -> new AtomicInteger()).incrementAndGet();
                    }
                    return method.invoke(queue, args);
                });
        List<Callable<Integer>> pumps = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            TimerPump pump = pump(timers, counting);
            pumps.add(() -> {
                int fired = 0;
                int n;
                while ((n = pump.pumpOnce()) > 0) {
                    fired += n;
                }
                return fired;
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<Integer> perPump = new ArrayList<>();
        try {
            for (Future<Integer> done : pool.invokeAll(pumps)) {
                perPump.add(done.get());
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(published).hasSize(10_000);
        assertThat(published.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        assertThat(perPump.stream().mapToInt(Integer::intValue).sum()).isEqualTo(10_000);
        assertThat(perPump).as("every pump took a share").allSatisfy(n -> assertThat(n).isPositive());
        assertThat(timers.dueCount(clock.instant())).isZero();
        assertThat(PG.database().count("SELECT count(*) FROM load_queue")).isEqualTo(10_000);
    }

    @Test
    void thePumpSleepsUntilTheNextFireAtButNeverLongerThanItsMaximum() {
        TimerPump pump = pump(timers, queue);
        assertThat(pump.sleepAfterPass()).isEqualTo(Duration.ofSeconds(30));

        timers.schedule(Timer.schedule(TimerId.of(newLoadId(), ASK, 1), T0.plusSeconds(5), null));
        assertThat(pump.sleepAfterPass()).isEqualTo(Duration.ofSeconds(5));

        timers.schedule(Timer.schedule(TimerId.of(newLoadId(), ASK, 1), T0.minusSeconds(1), null));
        assertThat(pump.sleepAfterPass()).as("due but claimed elsewhere: look again soon").isEqualTo(Duration.ofMillis(50));
    }
}
