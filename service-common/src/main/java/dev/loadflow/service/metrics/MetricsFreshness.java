package dev.loadflow.service.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.jboss.logging.Logger;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code loadflow.metrics.refreshed.timestamp}: when this service last read its gauges from
 * the database (seconds since the epoch). A gauge read from the database keeps its last value
 * when a read fails, so an alert on it alone would go quiet exactly when the database is in
 * trouble; {@code time()} minus this says how stale they are.
 */
@Singleton
public class MetricsFreshness {

    private static final Logger LOG = Logger.getLogger(MetricsFreshness.class);

    private final Clock clock;
    private final AtomicLong refreshedMillis = new AtomicLong();

    public MetricsFreshness(MeterRegistry registry, Clock clock) {
        this.clock = clock;
        Gauge.builder("loadflow.metrics.refreshed.timestamp", refreshedMillis, v -> v.get() / 1000.0)
                .description("When the service last read its gauges from the database (seconds since the epoch)")
                .baseUnit("seconds").strongReference(true).register(registry);
    }

    /** The gauges were just read. */
    public void refreshed() {
        refreshedMillis.set(clock.millis());
    }

    /**
     * Reads gauges from the database with {@code read}: when it returns, they are fresh; when it
     * throws, they keep their last values (their age shows it) and the log says {@code what}
     * could not be read.
     */
    public void refresh(String what, Runnable read) {
        try {
            read.run();
            refreshed();
        } catch (RuntimeException e) {
            LOG.warnf("could not read %s: %s", what, e.getMessage());
        }
    }
}
