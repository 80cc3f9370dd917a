package dev.loadflow.worker.consume;

import dev.loadflow.service.metrics.MetricsFreshness;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.queue.QueueStats;
import dev.loadflow.store.queue.QueueView;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code loadflow.queue.depth}, {@code loadflow.queue.oldest.age} and
 * {@code loadflow.worker.held.loads}, read on a schedule (not on each scrape, so a scrape never
 * waits on PostgreSQL).
 */
@ApplicationScoped
@io.quarkus.runtime.Startup
public class QueueMetrics {

    private static final Logger LOG = Logger.getLogger(QueueMetrics.class);

    private final QueueView queue;
    private final HeldLoads held;
    private final Clock clock;
    private final MetricsFreshness freshness;
    private final AtomicLong depth = new AtomicLong();
    private final AtomicLong oldestAgeMillis = new AtomicLong();
    private final AtomicLong heldLoads = new AtomicLong();
    private static final long UNKNOWN = -1;

    QueueMetrics(QueueView queue, HeldLoads held, Clock clock, MeterRegistry registry, MetricsFreshness freshness) {
        this.queue = queue;
        this.freshness = freshness;
        this.held = held;
        this.clock = clock;
        Gauge.builder("loadflow.queue.depth", depth, AtomicLong::get)
                .description("Messages in the load queue (queued and in flight)").strongReference(true).register(registry);
        TimeGauge.builder("loadflow.queue.oldest.age", oldestAgeMillis, TimeUnit.MILLISECONDS,
                        v -> v.get() < 0 ? Double.NaN : v.get())
                .description("How long the oldest message of the load queue has waited (NaN while the queue cannot say: SQS ages it from the messages it hands out)")
                .strongReference(true).register(registry);
        Gauge.builder("loadflow.worker.held.loads", heldLoads, AtomicLong::get)
                .description("Loads held at a message that cannot be processed, waiting for an operator's retry or skip")
                .strongReference(true).register(registry);
    }

    @Scheduled(every = "${loadflow.worker.metrics-interval:5s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refresh() {
        boolean read = true;
        try {
            QueueStats stats = queue.stats();
            depth.set(stats.depth());
            // SQS ages its oldest message only from what it hands out: until then unknown (NaN), not 0
            oldestAgeMillis.set(stats.oldestEnqueuedAt()
                    .map(oldest -> Math.max(0, Duration.between(oldest, clock.instant()).toMillis()))
                    .orElse(stats.depth() > 0 ? UNKNOWN : 0L));
        } catch (RuntimeException e) {
            read = false;
            LOG.warnf("could not read the load queue's stats: %s", e.getMessage());
        }
        try {
            heldLoads.set(held.count());
        } catch (RuntimeException e) {
            read = false;
            LOG.warnf("could not count the held loads: %s", e.getMessage());
        }
        if (read) {
            freshness.refreshed();
        }
    }

}
