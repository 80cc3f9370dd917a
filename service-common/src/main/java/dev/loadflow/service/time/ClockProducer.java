package dev.loadflow.service.time;

import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.time.Clock;

/**
 * The application clock: every business timestamp (occurred_at, available_at, fire_at,
 * retry_at, lease expiry) is read from it, never from the database's clock. Tests and evals
 * replace it with a {@code FakeClock} bean.
 */
@Singleton
public class ClockProducer {

    @Produces
    @Singleton
    @DefaultBean
    Clock clock() {
        return Clock.systemUTC();
    }
}
