package dev.loadflow.dispatcher.claim;

import dev.loadflow.dispatcher.DispatcherConfig;
import dev.loadflow.model.action.Channel;
import dev.loadflow.service.loop.LoopConfig;
import dev.loadflow.service.loop.LoopHealth;
import dev.loadflow.service.loop.LoopLifecycle;
import dev.loadflow.service.metrics.MetricsFreshness;
import dev.loadflow.store.outbox.Outbox;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Starts and stops the dispatch loop with the service, reports its health and keeps the
 * {@code loadflow.outbox.oldest.pending.age{channel}} gauges current. Dispatched rows are pruned
 * by the retention job ({@code loadflow.retention.parts=dispatched}).
 */
@ApplicationScoped
public class DispatcherLifecycle {

    private final DispatchLoop loop;
    private final DispatcherConfig config;
    private final Outbox outbox;
    private final Clock clock;
    private final Map<String, AtomicLong> oldestAgeMillis = new ConcurrentHashMap<>();
    private final MeterRegistry registry;
    private final MetricsFreshness freshness;

    private final SchemaGate gate;
    private final LoopLifecycle lifecycle;

    DispatcherLifecycle(DispatchLoop loop, DispatcherConfig config, Outbox outbox, Clock clock, MeterRegistry registry,
                        MetricsFreshness freshness, SchemaGate gate) {
        this.loop = loop;
        this.gate = gate;
        this.freshness = freshness;
        this.config = config;
        this.outbox = outbox;
        this.clock = clock;
        this.registry = registry;
        this.lifecycle = new LoopLifecycle(config.enabled(), "loadflow.dispatcher.enabled", loop::start,
                () -> loop.stop(Duration.ofSeconds(15)));
        gauge("all");
        for (Channel channel : Channel.values()) {
            gauge(channel.wire());
        }
    }

    /**
     * A gauge holds its value strongly: Micrometer's default weak reference lets a gauge whose
     * meter outlived its bean (Micrometer's global registry survives a restart of the
     * application in one JVM, as tests do) be collected and vanish from the scrape.
     */
    private AtomicLong gauge(String channel) {
        return oldestAgeMillis.computeIfAbsent(channel, c -> {
            AtomicLong value = new AtomicLong();
            TimeGauge.builder("loadflow.outbox.oldest.pending.age", value, TimeUnit.MILLISECONDS, AtomicLong::get)
                    .description("Age of the oldest pending outbox row (all: every channel)")
                    .tag("channel", c).strongReference(true).register(registry);
            return value;
        });
    }

    void start(@Observes StartupEvent event) {
        lifecycle.started(gate);
    }

    void stop(@Observes ShutdownEvent event) {
        lifecycle.stopping();
    }

    @Scheduled(every = "${loadflow.dispatcher.metrics-interval:5s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refreshAges() {
        freshness.refresh("the outbox's oldest pending rows", () -> {
            Instant now = clock.instant();
            Map<Channel, Instant> oldest = outbox.oldestPendingByChannel();
            long all = 0;
            for (Channel channel : Channel.values()) {
                Instant at = oldest.get(channel);
                long age = at == null ? 0 : Math.max(0, Duration.between(at, now).toMillis());
                gauge(channel.wire()).set(age);
                all = Math.max(all, age);
            }
            gauge("all").set(all);
        });
    }

    @Produces
    @Readiness
    HealthCheck dispatching() {
        return LoopHealth.started("outbox-dispatch-loop", config.enabled(), loop.loop());
    }

    @Produces
    @Liveness
    HealthCheck loopAlive(LoopConfig loops) {
        return LoopHealth.alive("outbox-dispatch-loop-alive", config.enabled(), loop.loop(),
                loops.livenessLimit(config.pollInterval().multipliedBy(10)));
    }
}
