package dev.loadflow.dispatcher;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** The dispatcher's loop, leases and retries ({@code loadflow.dispatcher.*}). */
@ConfigMapping(prefix = "loadflow.dispatcher")
public interface DispatcherConfig {

    /** Whether this instance claims and sends outbox rows (off: admin API only). */
    @WithDefault("true")
    boolean enabled();

    /** How long a claim holds a row; far above a send's timeout, so a slow send rarely outlives it. */
    @WithDefault("PT90S")
    Duration lease();

    /** Time from a row's first attempt after which no retry is scheduled (the first retry is always allowed). */
    @WithDefault("PT150S")
    Duration retryBudget();

    /** The first backoff; it doubles per attempt, with jitter, up to {@link #backoffMax()}. */
    @WithDefault("PT1S")
    Duration backoffBase();

    /** The longest backoff between two attempts of one row. */
    @WithDefault("PT30S")
    Duration backoffMax();

    /** The most rows of one channel a claim takes. */
    @WithDefault("50")
    int batchSize();

    /**
     * Internal actions (timers, stages) in hand at once per instance, from their claim until their
     * outcome and mark are written. Each external channel holds as many rows as its adaptive limit
     * lets it send at once ({@code loadflow.channels.<c>.max-concurrency} its ceiling), apart from
     * these: no row waits behind another channel's.
     */
    @WithDefault("128")
    int concurrency();

    /** The polling fallback: how long the loop waits for a NOTIFY before it looks again. */
    @WithDefault("PT1S")
    Duration pollInterval();

    /**
     * After a claim that came back short of a batch, how long the loop lets more rows come due
     * before it claims again: fewer, fuller claims for at most this much latency. 0 claims at once.
     */
    @WithDefault("PT0.005S")
    Duration linger();

    Circuit circuit();

    /** The circuit breaker every channel gets. */
    interface Circuit {
        /** Failure rate (percent of the last calls) that opens a channel's circuit. */
        @WithDefault("50")
        float failureRateThreshold();

        /** Calls in the sliding window the rate is measured on. */
        @WithDefault("20")
        int slidingWindow();

        /** Calls needed before the rate counts. */
        @WithDefault("10")
        int minimumCalls();

        /** How long an open circuit stays open before trial calls (half-open). */
        @WithDefault("PT30S")
        Duration openFor();

        /** A circuit set in code (benchmarks and tests build the dispatcher without Quarkus). */
        static Circuit of(float failureRateThreshold, int slidingWindow, int minimumCalls, Duration openFor) {
            return new Circuit() {
                @Override
                public float failureRateThreshold() {
                    return failureRateThreshold;
                }

                @Override
                public int slidingWindow() {
                    return slidingWindow;
                }

                @Override
                public int minimumCalls() {
                    return minimumCalls;
                }

                @Override
                public Duration openFor() {
                    return openFor;
                }
            };
        }
    }
}
