package dev.loadflow.pump.fire;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code loadflow.pump.lateness} (fired at minus {@code fire_at}, histogram),
 * {@code loadflow.pump.fired}, {@code loadflow.pump.due.backlog} and
 * {@code loadflow.pump.last.pass.timestamp} (seconds since the epoch; lag = time() minus it).
 */
public final class PumpMetrics {

    private final Timer lateness;
    private final Counter fired;
    private final AtomicLong backlog = new AtomicLong();
    private final AtomicLong lastPassMillis = new AtomicLong();

    public PumpMetrics(MeterRegistry registry) {
        lateness = Timer.builder("loadflow.pump.lateness").description("How late timers fired: fired at minus fire_at")
                .publishPercentileHistogram().publishPercentiles(0.5, 0.99).register(registry);
        fired = Counter.builder("loadflow.pump.fired").description("Timers fired (TimerFired published)").register(registry);
        Gauge.builder("loadflow.pump.due.backlog", backlog, AtomicLong::get)
                .description("Scheduled timers already due and not fired yet").strongReference(true).register(registry);
        Gauge.builder("loadflow.pump.last.pass.timestamp", lastPassMillis, v -> v.get() / 1000.0)
                .description("When the pump last finished a pass (seconds since the epoch)").baseUnit("seconds")
                .strongReference(true).register(registry);
    }

    void fired(Duration late) {
        fired.increment();
        lateness.record(late.isNegative() ? Duration.ZERO : late);
    }

    void passed(Instant at) {
        lastPassMillis.set(at.toEpochMilli());
    }

    public void backlog(long due) {
        backlog.set(due);
    }

}
