package dev.loadflow.worker.consume;

import dev.loadflow.service.health.SchemaGate;
import dev.loadflow.service.loop.LoopLifecycle;
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

    private final SchemaGate gate;
    private final LoopLifecycle lifecycle;

    ConsumerLifecycle(QueueConsumer consumer, WorkerConfig config, SchemaGate gate) {
        this.gate = gate;
        this.lifecycle = new LoopLifecycle(config.consumer().enabled(), "loadflow.worker.consumer.enabled", consumer::start, () -> {
            boolean clean = consumer.stop(config.shutdownGrace());
            LOG.infof("load queue consumer stopped (%s)", clean ? "every run finished" : "some runs abandoned and given back");
        });
    }

    void start(@Observes StartupEvent event) {
        lifecycle.started(gate);
    }

    void stop(@Observes ShutdownEvent event) {
        lifecycle.stopping();
    }
}
