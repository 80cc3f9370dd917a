package dev.loadflow.worker.consume;

import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.QueueStats;
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
 * {@code loadflow.queue.depth} and {@code loadflow.queue.oldest.age}, read from the database
 * on a schedule (not on each scrape, so a scrape never waits on PostgreSQL).
 */
@ApplicationScoped
@io.quarkus.runtime.Startup
public class QueueMetrics {

    private static final Logger LOG = Logger.getLogger(QueueMetrics.class);

    private final LoadQueue queue;
    private final Clock clock;
    private final AtomicLong depth = new AtomicLong();
    private final AtomicLong oldestAgeMillis = new AtomicLong();

    QueueMetrics(LoadQueue queue, Clock clock, MeterRegistry registry) {
        this.queue = queue;
        this.clock = clock;
        Gauge.builder("loadflow.queue.depth", depth, AtomicLong::get)
                .description("Messages in the load queue (queued and in flight)").register(registry);
        TimeGauge.builder("loadflow.queue.oldest.age", oldestAgeMillis, TimeUnit.MILLISECONDS, AtomicLong::get)
                .description("How long the oldest message of the load queue has waited").register(registry);
    }

    @Scheduled(every = "${loadflow.worker.metrics-interval:5s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refresh() {
        try {
            QueueStats stats = queue.stats();
            depth.set(stats.depth());
            oldestAgeMillis.set(stats.oldestEnqueuedAt()
                    .map(oldest -> Math.max(0, Duration.between(oldest, clock.instant()).toMillis())).orElse(0L));
        } catch (RuntimeException e) {
            LOG.warnf("could not read the load queue's stats: %s", e.getMessage());
        }
    }
}
