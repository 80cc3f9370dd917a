package dev.loadflow.dispatcher.finish;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import static org.assertj.core.api.Assertions.assertThat;

class RetryPolicyTest {

    private static final Instant FIRST = Instant.parse("2026-11-30T07:01:00Z");
    private final RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30),
            Duration.ofSeconds(150), new SplittableRandom(42));

    @Test
    void backoffDoublesWithJitterWithinHalfToFullAndIsCapped() {
        for (int attempts = 1; attempts <= 10; attempts++) {
            Duration full = Duration.ofSeconds(Math.min(30, 1L << (attempts - 1)));
            for (int i = 0; i < 50; i++) {
                Instant at = policy.nextAttempt(attempts, FIRST, FIRST, Optional.empty()).orElseThrow();
                Duration delay = Duration.between(FIRST, at);
                assertThat(delay).isBetween(full.dividedBy(2), full);
            }
        }
    }

    @Test
    void theFirstRetryIsAlwaysAllowedEvenPastTheBudgetAndThenAtOnce() {
        Instant late = FIRST.plus(Duration.ofMinutes(10));

        assertThat(policy.nextAttempt(1, FIRST, late, Optional.empty())).contains(late);
    }

    /** A provider asking for ten minutes does not hold the first retry past the budget: the load hears within it. */
    @Test
    void theFirstRetryWaitsOutRetryAfterOnlyUntilTheBudgetEnds() {
        Instant now = FIRST.plusSeconds(2);

        assertThat(policy.nextAttempt(1, FIRST, now, Optional.of(Duration.ofSeconds(600)))).contains(FIRST.plusSeconds(150));
        assertThat(policy.nextAttempt(1, FIRST, now, Optional.of(Duration.ofSeconds(20)))).contains(now.plusSeconds(20));
    }

    @Test
    void aLaterRetryThatWouldLandPastTheBudgetKillsTheRow() {
        Instant now = FIRST.plusSeconds(140);

        assertThat(policy.nextAttempt(2, FIRST, FIRST.plusSeconds(100), Optional.empty())).isPresent();
        assertThat(policy.nextAttempt(6, FIRST, now, Optional.of(Duration.ofSeconds(11)))).isEmpty();
        assertThat(policy.nextAttempt(6, FIRST, FIRST.plusSeconds(151), Optional.empty())).isEmpty();
    }

    @Test
    void retryAfterIsHonouredWhenLongerThanTheBackoff() {
        RandomGenerator noJitter = new SplittableRandom(1);
        RetryPolicy p = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(150), noJitter);

        assertThat(p.nextAttempt(1, FIRST, FIRST, Optional.of(Duration.ofSeconds(20)))).contains(FIRST.plusSeconds(20));
        assertThat(Duration.between(FIRST, p.nextAttempt(3, FIRST, FIRST, Optional.of(Duration.ofMillis(1))).orElseThrow()))
                .isBetween(Duration.ofSeconds(2), Duration.ofSeconds(4));
    }
}
