package dev.loadflow.worker.consume;

import dev.loadflow.worker.WorkerConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/** Starts the consumer with the service and stops it gracefully before the service goes down. */
@ApplicationScoped
public class ConsumerLifecycle {

    private static final Logger LOG = Logger.getLogger(ConsumerLifecycle.class);

    private final QueueConsumer consumer;
    private final WorkerConfig config;

    ConsumerLifecycle(QueueConsumer consumer, WorkerConfig config) {
        this.consumer = consumer;
        this.config = config;
    }

    void start(@Observes StartupEvent event) {
        if (config.consumer().enabled()) {
            consumer.start();
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
