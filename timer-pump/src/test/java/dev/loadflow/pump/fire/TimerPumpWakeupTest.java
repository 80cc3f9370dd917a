package dev.loadflow.pump.fire;

import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.PgLoadQueue;
import dev.loadflow.store.timer.PgTimerStore;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.store.timer.TimerStatus;
import dev.loadflow.store.timer.TimerStore;
import dev.loadflow.testing.PgBackend;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * The running pump and its NOTIFY: a timer scheduled for after the pump's next look does not
 * wake it (a load's ETA timer is half an hour out: waking for each cost the idle pump a tenth
 * of a core under load); one due sooner does, and fires on time. On the real clock.
 */
class TimerPumpWakeupTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("pumpwake");

    private static final AskId ASK = AskId.of("eta_request", "ping_0700");

    @Test
    void aTimerDueAfterThePumpsNextLookDoesNotWakeItAndOneDueSoonerFiresOnTime() {
        PG.database().truncateAll();
        Clock clock = Clock.systemUTC();
        TimerStore timers = new PgTimerStore(PG.pool(), clock, Duration.ofSeconds(30), PG.wakeups());
        LoadQueue queue = new PgLoadQueue(PG.pool(), clock, Duration.ofMinutes(5), PG.notifications().signal(PgNotifications.QUEUE),
                PG.wakeups());
        AtomicInteger looks = new AtomicInteger();
        TimerStore counted = (TimerStore) Proxy.newProxyInstance(TimerStore.class.getClassLoader(), new Class<?>[]{TimerStore.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("due")) {
                        looks.incrementAndGet();
                    }
                    try {
                        return method.invoke(timers, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        TimerPump pump = new TimerPump(counted, queue, clock, PG.notifications().signal(PgNotifications.TIMERS), 100,
                Duration.ofSeconds(20), Duration.ofSeconds(30), new PumpMetrics(new SimpleMeterRegistry()));
        pump.start();
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> looks.get() >= 1);
            int before = looks.get();

            String load = newLoadId();
            timers.schedule(Timer.schedule(TimerId.of(load, ASK, 1), clock.instant().plus(Duration.ofMinutes(30)), "c-1"));
            await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3))
                    .until(() -> looks.get() == before);

            TimerId soon = TimerId.of(load, ASK, 2);
            timers.schedule(Timer.schedule(soon, clock.instant().plusMillis(300), "c-1"));
            await().atMost(Duration.ofSeconds(3)).until(() -> timers.find(soon).orElseThrow().status() == TimerStatus.FIRED);
            assertThat(timers.find(TimerId.of(load, ASK, 1)).orElseThrow().status()).isEqualTo(TimerStatus.SCHEDULED);
        } finally {
            pump.stop();
        }
    }
}
