package dev.loadflow.service.loop;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;

import java.time.Duration;

/** The health checks every loop reports: readiness = started; liveness = went round recently. */
public final class LoopHealth {

    private LoopHealth() {
    }

    /** Up when the loop runs, or when it is switched off ({@code enabled} false). */
    public static HealthCheck started(String name, boolean enabled, ServiceLoop loop) {
        return () -> HealthCheckResponse.named(name).status(!enabled || loop.running())
                .withData("enabled", enabled).build();
    }

    /** Up when the loop runs and began a pass less than {@code limit} ago, or when it is switched off. */
    public static HealthCheck alive(String name, boolean enabled, ServiceLoop loop, Duration limit) {
        return () -> {
            Duration since = loop.sinceLastLoop();
            return HealthCheckResponse.named(name)
                    .status(!enabled || (loop.running() && since.compareTo(limit) < 0))
                    .withData("enabled", enabled).withData("sinceLastLoopMillis", since.toMillis()).build();
        };
    }
}
