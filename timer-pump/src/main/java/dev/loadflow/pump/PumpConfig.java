package dev.loadflow.pump;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** The timer pump ({@code loadflow.pump.*}). */
@ConfigMapping(prefix = "loadflow.pump")
public interface PumpConfig {

    /** Whether this instance fires timers (off: admin API only). */
    @WithDefault("true")
    boolean enabled();

    /**
     * The longest the pump sleeps between passes. It wakes earlier at the next {@code fire_at}
     * and whenever a timer is scheduled (NOTIFY), so this only bounds the damage of a lost
     * notification; the ADR allows one minute of lateness.
     */
    @WithDefault("PT30S")
    Duration maxSleep();

    /** Due timers claimed per pass. */
    @WithDefault("200")
    int batchSize();

    /** How long a claim on a due timer holds: a pump that dies after publishing fires it again after this. */
    @WithDefault("PT30S")
    Duration claimLease();
}
