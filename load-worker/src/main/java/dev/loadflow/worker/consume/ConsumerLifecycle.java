package dev.loadflow.worker.consume;

import dev.loadflow.service.health.SchemaGate;
import dev.loadflow.worker.WorkerConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Starts the consumer once the schema is this build's ({@link SchemaGate}) and stops it
 * gracefully before the service goes down, or when the schema moves past this build.
 */
@ApplicationScoped
public class ConsumerLifecycle {

    private static final Logger LOG = Logger.getLogger(ConsumerLifecycle.class);

    private final QueueConsumer consumer;
    private final WorkerConfig config;
    private final SchemaGate gate;

    ConsumerLifecycle(QueueConsumer consumer, WorkerConfig config, SchemaGate gate) {
        this.consumer = consumer;
        this.config = config;
        this.gate = gate;
    }

    void start(@Observes StartupEvent event) {
        if (config.consumer().enabled()) {
            // only on a schema this build runs on (the schema gate)
            gate.whenOpen(consumer::start, () -> consumer.stop(config.shutdownGrace()));
        } else {
            LOG.info("loadflow.worker.consumer.enabled=false: not consuming the load queue");
        }
    }

    void stop(@Observes ShutdownEvent event) {
        if (config.consumer().enabled()) {
            boolean clean = consumer.stop(config.shutdownGrace());
            LOG.infof("load queue consumer stopped (%s)", clean ? "every run finished" : "some runs abandoned and given back");
        }
    }
}
