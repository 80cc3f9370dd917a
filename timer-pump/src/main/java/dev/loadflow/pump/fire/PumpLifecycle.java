package dev.loadflow.pump.fire;

import dev.loadflow.pump.PumpConfig;
import dev.loadflow.service.health.SchemaGate;
import dev.loadflow.service.loop.LoopConfig;
import dev.loadflow.service.loop.LoopHealth;
import dev.loadflow.service.loop.LoopLifecycle;
import dev.loadflow.service.metrics.MetricsFreshness;
import dev.loadflow.store.timer.TimerStore;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.time.Clock;

/**
 * Starts and stops the pump with the service, reports its health and its backlog. Ended timers
 * are pruned by the retention job ({@code loadflow.retention.parts=timers}).
 */
@ApplicationScoped
public class PumpLifecycle {

    private final TimerPump pump;
    private final PumpConfig config;
    private final TimerStore timers;
    private final PumpMetrics metrics;
    private final Clock clock;
    private final MetricsFreshness freshness;
    private final SchemaGate gate;
    private final LoopLifecycle lifecycle;

    PumpLifecycle(TimerPump pump, PumpConfig config, TimerStore timers, PumpMetrics metrics, Clock clock,
                  MetricsFreshness freshness, SchemaGate gate) {
        this.pump = pump;
        this.config = config;
        this.timers = timers;
        this.metrics = metrics;
        this.clock = clock;
        this.freshness = freshness;
        this.gate = gate;
        this.lifecycle = new LoopLifecycle(config.enabled(), "loadflow.pump.enabled", pump::start, pump::stop);
    }

    void start(@Observes StartupEvent event) {
        lifecycle.started(gate);
    }

    void stop(@Observes ShutdownEvent event) {
        lifecycle.stopping();
    }

    @Scheduled(every = "${loadflow.pump.metrics-interval:5s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refreshBacklog() {
        freshness.refresh("the due timers", () -> metrics.backlog(timers.dueCount(clock.instant())));
    }

    @Produces
    @Readiness
    HealthCheck pumping() {
        return LoopHealth.started("timer-pump", config.enabled(), pump.loop());
    }

    @Produces
    @Liveness
    HealthCheck alive(LoopConfig loops) {
        return LoopHealth.alive("timer-pump-loop", config.enabled(), pump.loop(), loops.livenessLimit(config.maxSleep().multipliedBy(2)));
    }
}
