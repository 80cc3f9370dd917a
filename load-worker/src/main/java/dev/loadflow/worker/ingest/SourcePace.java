package dev.loadflow.worker.ingest;

import dev.loadflow.service.pace.Rates;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.service.security.IngestSources;
import io.github.resilience4j.ratelimiter.RateLimiter;
import jakarta.inject.Singleton;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Each source's pace at ingest ({@code loadflow.ingest.sources.<name>.rate}, events a second to
 * this worker, with a burst of as many): an event past it is refused with {@code 429} and
 * {@code Retry-After} (the seconds until the source may post again), nothing written, so one
 * source's flood (a leaked token, a looping sender) cannot fill the queue ahead of the others.
 * A source without a rate, and the short {@code loadflow.ingest.tokens} form, are not paced.
 */
@Singleton
public class SourcePace {

    private final Map<String, RateLimiter> limiters = new HashMap<>();

    public SourcePace(IngestSources sources) {
        sources.sources().forEach((name, source) -> {
            if (source.rate() < 0) {
                throw new IllegalArgumentException("loadflow.ingest.sources." + name + ".rate is 0 (no limit) or more, got "
                        + source.rate());
            }
            if (source.rate() > 0) {
                limiters.put(name, RateLimiter.of("ingest-" + name, Rates.perSecond(source.rate(), Duration.ZERO)));
            }
        });
    }

    /** Admits one event of {@code source}, or throws the {@code 429} it gets. */
    public void admit(String source) {
        RateLimiter limiter = limiters.get(source);
        if (limiter == null || limiter.acquirePermission()) {
            return;
        }
        // permits come back at the next refresh: at most a period away, rounded up to whole seconds
        long periodNanos = limiter.getRateLimiterConfig().getLimitRefreshPeriod().toNanos();
        long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(periodNanos + TimeUnit.SECONDS.toNanos(1) - 1));
        throw new WebApplicationException("source " + source + " is past its rate", Response.fromResponse(
                        Problem.of(Response.Status.TOO_MANY_REQUESTS, "Too many events",
                                "source " + source + " may post " + limiter.getRateLimiterConfig().getLimitForPeriod()
                                        + " event(s) per " + limiter.getRateLimiterConfig().getLimitRefreshPeriod()
                                        + " to this worker; nothing was written: send it again in " + seconds + " s", null)
                                .response())
                .header("Retry-After", Long.toString(seconds)).build());
    }
}
