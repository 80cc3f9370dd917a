package dev.loadflow.dispatcher.finish;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * When a failed row is tried again (ADR 0003 "Claims, leases and the retry budget"): capped
 * exponential backoff with equal jitter, never sooner than the channel's {@code Retry-After};
 * the budget counts from the row's first attempt; the first retry is always allowed (no later than
 * the budget's end, whatever {@code Retry-After} asked), and a later retry that would land past the
 * budget kills the row instead.
 */
public final class RetryPolicy {

    private final Duration base;
    private final Duration max;
    private final Duration budget;
    private final RandomGenerator random;

    public RetryPolicy(Duration base, Duration max, Duration budget, RandomGenerator random) {
        this.base = base;
        this.max = max;
        this.budget = budget;
        this.random = random;
    }

    /**
     * @param attempts       attempts so far, the failed one included (1 after the first failure)
     * @param firstAttemptAt when the row was first claimed
     * @return when to try again, or empty when the row must die
     */
    public Optional<Instant> nextAttempt(int attempts, Instant firstAttemptAt, Instant now, Optional<Duration> retryAfter) {
        Duration backoff = base.multipliedBy(1L << Math.min(Math.max(attempts - 1, 0), 20));
        if (backoff.compareTo(max) > 0) {
            backoff = max;
        }
        long halfNanos = backoff.toNanos() / 2;
        Duration delay = Duration.ofNanos(halfNanos + (halfNanos > 0 ? random.nextLong(halfNanos + 1) : 0));
        if (retryAfter.isPresent() && retryAfter.get().compareTo(delay) > 0) {
            delay = retryAfter.get();
        }
        Instant at = now.plus(delay);
        if (firstAttemptAt == null) {
            return Optional.of(at);
        }
        Instant budgetEnds = firstAttemptAt.plus(budget);
        if (attempts <= 1) {
            // never past the budget, however long the provider asked to wait: the row is tried once
            // more then, and its load hears within the budget if that fails too
            return Optional.of(at.isAfter(budgetEnds) ? (budgetEnds.isAfter(now) ? budgetEnds : now) : at);
        }
        return at.isAfter(budgetEnds) ? Optional.empty() : Optional.of(at);
    }

    public Duration budget() {
        return budget;
    }
}
