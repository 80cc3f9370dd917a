package dev.loadflow.service.loop;

import dev.loadflow.service.health.SchemaGate;
import org.jboss.logging.Logger;

/**
 * A service's loop, started and stopped with the service: started once the schema is one this
 * build runs on ({@link SchemaGate}), stopped when the schema moves past this build or the
 * service goes down. A loop switched off by its key never starts, and the log says which key.
 * The worker's consumer, the dispatcher's loop and the pump each hold one.
 */
public final class LoopLifecycle {

    private static final Logger LOG = Logger.getLogger(LoopLifecycle.class);

    private final boolean enabled;
    private final String switchKey;
    private final Runnable start;
    private final Runnable stop;

    /**
     * @param enabled   whether the loop runs in this service
     * @param switchKey the configuration key that switches it off, for the log line that says it is
     * @param start     starts the loop
     * @param stop      stops it, waiting as long as the loop allows for what is in flight
     */
    public LoopLifecycle(boolean enabled, String switchKey, Runnable start, Runnable stop) {
        this.enabled = enabled;
        this.switchKey = switchKey;
        this.start = start;
        this.stop = stop;
    }

    /** Call once the service started: the loop runs as soon as the gate is open. */
    public void started(SchemaGate gate) {
        if (enabled) {
            gate.whenOpen(start, stop);
        } else {
            LOG.infof("%s=false: this loop does not run here", switchKey);
        }
    }

    /** Call as the service goes down. */
    public void stopping() {
        if (enabled) {
            stop.run();
        }
    }
}
