package dev.loadflow.service.time;

import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;

/**
 * The application clock: every business timestamp (occurred_at, available_at, fire_at,
 * retry_at, lease expiry) is read from it, never from the database's clock. Tests and evals
 * replace it with a {@code FakeClock} bean. It ticks in microseconds, PostgreSQL's precision, so
 * a time read back from the database equals the time that was written.
 */
@Singleton
public class ClockProducer {

    @Produces
    @Singleton
    @DefaultBean
    Clock clock() {
        return Clock.tick(Clock.systemUTC(), Duration.ofNanos(1_000));
    }
}
