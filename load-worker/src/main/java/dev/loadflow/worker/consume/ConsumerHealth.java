package dev.loadflow.worker.consume;

import dev.loadflow.service.loop.LoopConfig;
import dev.loadflow.service.loop.LoopHealth;
import dev.loadflow.worker.WorkerConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/** Readiness: the consumer was started (with the messages it runs now). Liveness: its loop still goes round. */
@ApplicationScoped
public class ConsumerHealth {

    private final QueueConsumer consumer;
    private final WorkerConfig config;

    ConsumerHealth(QueueConsumer consumer, WorkerConfig config) {
        this.consumer = consumer;
        this.config = config;
    }

    @Produces
    @Readiness
    HealthCheck started() {
        boolean enabled = config.consumer().enabled();
        return () -> HealthCheckResponse.named("load-queue-consumer").status(!enabled || consumer.loop().running())
                .withData("enabled", enabled).withData("inFlight", consumer.inFlight()).build();
    }

    @Produces
    @Liveness
    HealthCheck loopAlive(LoopConfig loops) {
        return LoopHealth.alive("load-queue-consumer-loop", config.consumer().enabled(), consumer.loop(),
                loops.livenessLimit(config.pollWait().multipliedBy(10)));
    }
}
