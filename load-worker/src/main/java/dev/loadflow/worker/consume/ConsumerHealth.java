package dev.loadflow.worker.consume;

import dev.loadflow.worker.WorkerConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.time.Duration;

/** Readiness: the consumer was started. Liveness: its loop still goes round. */
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
        return () -> {
            if (!config.consumer().enabled()) {
                return HealthCheckResponse.named("load-queue-consumer").up().withData("enabled", false).build();
            }
            return HealthCheckResponse.named("load-queue-consumer").status(consumer.running())
                    .withData("enabled", true).withData("inFlight", consumer.inFlight()).build();
        };
    }

    @Produces
    @Liveness
    HealthCheck loopAlive() {
        Duration limit = config.pollWait().multipliedBy(10).plusSeconds(30);
        return () -> {
            if (!config.consumer().enabled()) {
                return HealthCheckResponse.up("load-queue-consumer-loop");
            }
            Duration since = consumer.sinceLastLoop();
            return HealthCheckResponse.named("load-queue-consumer-loop")
                    .status(consumer.running() && since.compareTo(limit) < 0)
                    .withData("sinceLastLoopMillis", since.toMillis()).build();
        };
    }
}
