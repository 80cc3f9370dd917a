package dev.loadflow.pump.fire;

import dev.loadflow.pump.PumpConfig;
import dev.loadflow.service.loop.LoopHealth;
import dev.loadflow.service.metrics.MetricsFreshness;
import dev.loadflow.service.retention.BatchedDelete;
import dev.loadflow.store.timer.TimerStore;
import io.quarkus.runtime.ShutdownEvent;
import dev.loadflow.service.health.SchemaGate;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;

/** Starts and stops the pump, reports its health and backlog, prunes finished timers. */
@ApplicationScoped
public class PumpLifecycle {

    private static final Logger LOG = Logger.getLogger(PumpLifecycle.class);

    private final TimerPump pump;
    private final PumpConfig config;
    private final TimerStore timers;
    private final PumpMetrics metrics;
    private final Clock clock;
    private final MetricsFreshness freshness;

    private final SchemaGate gate;

    PumpLifecycle(TimerPump pump, PumpConfig config, TimerStore timers, PumpMetrics metrics, Clock clock,
                  MetricsFreshness freshness, SchemaGate gate) {
        this.pump = pump;
        this.gate = gate;
        this.freshness = freshness;
        this.config = config;
        this.timers = timers;
        this.metrics = metrics;
        this.clock = clock;
    }

    void start(@Observes StartupEvent event) {
        if (config.enabled()) {
            // only on a schema this build runs on (the schema gate)
            gate.whenOpen(pump::start, pump::stop);
        } else {
            LOG.info("loadflow.pump.enabled=false: not firing timers");
        }
    }

    void stop(@Observes ShutdownEvent event) {
        if (config.enabled()) {
            pump.stop();
        }
    }

    @Scheduled(every = "${loadflow.pump.metrics-interval:5s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refreshBacklog() {
        try {
            metrics.backlog(timers.dueCount(clock.instant()));
            freshness.refreshed();
        } catch (RuntimeException e) {
            LOG.warnf("could not count due timers: %s", e.getMessage());
        }
    }

    @Scheduled(every = "${loadflow.pump.prune-interval:1h}", delayed = "1m",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void prune() {
        Instant before = clock.instant().minus(config.retention());
        int total = BatchedDelete.untilDone(batch -> timers.prune(before, batch), config.pruneBatch());
        if (total > 0) {
            LOG.infof("pruned %d fired or cancelled timers that ended before %s", total, before);
        }
    }

    @Produces
    @Readiness
    HealthCheck pumping() {
        return LoopHealth.started("timer-pump", config.enabled(), pump.loop());
    }

    @Produces
    @Liveness
    HealthCheck alive() {
        return LoopHealth.alive("timer-pump-loop", config.enabled(), pump.loop(), config.maxSleep().multipliedBy(2).plusSeconds(30));
    }
}
