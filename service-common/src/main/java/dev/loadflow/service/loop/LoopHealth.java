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

    /**
     * Up when the loop runs and began a pass less than {@code limit} ago ({@link LoopConfig#livenessLimit}),
     * or when it is not meant to run: switched off, not started yet (the schema gate waits for a
     * migration) or stopped. Only a loop that should be going round and is not fails: a restart
     * may help it, and nothing else does.
     */
    public static HealthCheck alive(String name, boolean enabled, ServiceLoop loop, Duration limit) {
        return () -> {
            Duration since = loop.sinceLastLoop();
            boolean meantToRun = enabled && loop.meantToRun();
            return HealthCheckResponse.named(name)
                    .status(!meantToRun || (loop.running() && since.compareTo(limit) < 0))
                    .withData("enabled", enabled).withData("meantToRun", meantToRun)
                    .withData("sinceLastLoopMillis", since.toMillis()).build();
        };
    }
}
