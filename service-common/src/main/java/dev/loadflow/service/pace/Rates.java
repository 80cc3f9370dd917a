package dev.loadflow.service.pace;

import io.github.resilience4j.ratelimiter.RateLimiterConfig;

import java.time.Duration;

/** A rate as resilience4j's {@code RateLimiter} takes it: a channel's pace, a source's at ingest. */
public final class Rates {

    private Rates() {
    }

    /**
     * {@code rate} a second as whole permits per refresh period: a second's worth each second, or
     * below one a second, one permit per longer period; a caller without a permit waits up to
     * {@code wait} for one.
     */
    public static RateLimiterConfig perSecond(double rate, Duration wait) {
        boolean fast = rate >= 1;
        return RateLimiterConfig.custom()
                .limitRefreshPeriod(fast ? Duration.ofSeconds(1) : Duration.ofNanos((long) (1e9 / rate)))
                .limitForPeriod(fast ? (int) Math.round(rate) : 1)
                .timeoutDuration(wait).build();
    }
}
