package dev.loadflow.service.loop;

import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Duration;

/**
 * How every service's loops and its migration at start retry after a failure, and how long their
 * liveness waits for them.
 */
@Singleton
public class LoopConfig {

    private final Duration maxBackoff;
    private final Duration linkTimeout;

    /**
     * @param maxBackoff  {@code loadflow.loop.max-backoff}: the longest wait before a failed pass (or a
     *                    migration at start the database refused) is tried again; waits start at
     *                    500 ms and double up to it
     * @param linkTimeout {@code loadflow.db.link-timeout}: a statement on a silent link fails after
     *                    it, or after three times as long on a connection that stays silent while
     *                    the others answer
     */
    public LoopConfig(@ConfigProperty(name = "loadflow.loop.max-backoff", defaultValue = "PT30S") Duration maxBackoff,
                      @ConfigProperty(name = "loadflow.db.link-timeout", defaultValue = "PT5S") Duration linkTimeout) {
        this.maxBackoff = maxBackoff;
        this.linkTimeout = linkTimeout;
    }

    public Duration maxBackoff() {
        return maxBackoff;
    }

    /**
     * How long a loop may go without beginning a pass before its liveness fails: its longest rest,
     * a pass that waits out a silent link, and the longest backoff after it. An outage of any
     * length, during which the loop keeps failing and backing off, never fails it.
     *
     * @param longestRest the longest rest a healthy loop takes between passes
     */
    public Duration livenessLimit(Duration longestRest) {
        return longestRest.plus(linkTimeout.multipliedBy(3)).plus(maxBackoff);
    }
}
