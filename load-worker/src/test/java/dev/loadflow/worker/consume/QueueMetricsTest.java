package dev.loadflow.worker.consume;

import dev.loadflow.model.time.FakeClock;
import dev.loadflow.service.metrics.MetricsFreshness;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.queue.QueueView;
import dev.loadflow.store.queue.QueueStats;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The queue gauges say what they know: an age the queue cannot tell (SQS, before it hands a message out) is NaN, not 0, and a failed read leaves them stale and says so. */
class QueueMetricsTest {

    private final FakeClock clock = FakeClock.at("2026-11-30T07:00:00Z");
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicReference<Object> stats = new AtomicReference<>();
    private final QueueMetrics metrics = new QueueMetrics(stub(QueueView.class, "stats", stats), stub(HeldLoads.class, "count",
            new AtomicReference<>(2)), clock, registry, new MetricsFreshness(registry, clock));

    @SuppressWarnings("unchecked")
    private static <T> T stub(Class<T> type, String method, AtomicReference<Object> answer) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[]{type}, (proxy, m, args) -> {
            if (!m.getName().equals(method)) {
                throw new UnsupportedOperationException(m.getName());
            }
            if (answer.get() instanceof RuntimeException e) {
                throw e;
            }
            return answer.get();
        });
    }

    private double age() {
        return registry.get("loadflow.queue.oldest.age").timeGauge().value(TimeUnit.SECONDS);
    }

    private double refreshedAt() {
        return registry.get("loadflow.metrics.refreshed.timestamp").gauge().value();
    }

    @Test
    void theOldestMessagesAgeIsReadAndAnAgeTheQueueCannotTellIsNotAZero() {
        stats.set(new QueueStats(2, Optional.of(clock.instant().minusSeconds(90))));
        metrics.refresh();
        assertThat(age()).isEqualTo(90.0);
        assertThat(registry.get("loadflow.worker.held.loads").gauge().value()).isEqualTo(2.0);

        stats.set(new QueueStats(3, Optional.empty()));
        metrics.refresh();
        assertThat(age()).as("SQS before a receive: messages wait, their age unknown").isNaN();

        stats.set(new QueueStats(0, Optional.empty()));
        metrics.refresh();
        assertThat(age()).as("an empty queue").isZero();
    }

    @Test
    void aFailedReadLeavesTheGaugesAsTheyWereAndTheirRefreshTimeBehind() {
        stats.set(new QueueStats(2, Optional.of(clock.instant().minusSeconds(30))));
        metrics.refresh();
        Instant firstRead = clock.instant();
        assertThat(refreshedAt()).isEqualTo(firstRead.toEpochMilli() / 1000.0);

        clock.advance(Duration.ofMinutes(3));
        stats.set(new IllegalStateException("Connection refused"));
        metrics.refresh();

        assertThat(age()).isEqualTo(30.0);
        assertThat(refreshedAt()).as("time() minus this is three minutes").isEqualTo(firstRead.toEpochMilli() / 1000.0);
    }
}
