package dev.loadflow.dispatcher.protect;

import dev.loadflow.dispatcher.DispatcherConfig;
import dev.loadflow.model.action.Channel;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class ChannelGuardsTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private ChannelGuards guards(ChannelGuards.Pace pace) {
        return new ChannelGuards(circuit(), channel -> pace, new SimpleMeterRegistry(), ChannelGuards.CircuitListener.NONE,
                nanos::get);
    }

    @Test
    void aChannelHoldsTwiceItsInFlightLimitOrNoMoreThanASecondOfItsRate() {
        assertThat(guards(new ChannelGuards.Pace(256, 5)).capacity(Channel.SMS)).isEqualTo(5);
        assertThat(guards(new ChannelGuards.Pace(256, 0.5)).capacity(Channel.SMS)).as("at least one").isOne();
        assertThat(guards(new ChannelGuards.Pace(256, 0)).capacity(Channel.SMS)).as("in flight, and as many ready")
                .isEqualTo(2 * ChannelGuards.INITIAL_LIMIT);
        assertThat(guards(new ChannelGuards.Pace(8, 0)).capacity(Channel.SMS)).as("never above the ceiling").isEqualTo(16);
    }

    @Test
    void aRateBelowOnePerSecondIsOnePermitPerLongerPeriod() {
        RateLimiterConfig slow = ChannelGuards.perSecond(0.5);
        RateLimiterConfig fast = ChannelGuards.perSecond(30);

        assertThat(slow.getLimitRefreshPeriod()).isEqualTo(Duration.ofSeconds(2));
        assertThat(slow.getLimitForPeriod()).isOne();
        assertThat(fast.getLimitRefreshPeriod()).isEqualTo(Duration.ofSeconds(1));
        assertThat(fast.getLimitForPeriod()).isEqualTo(30);
    }

    @Test
    void aProviderOverCapacityShrinksTheLimitAndItsRetryAfterPausesTheChannel() {
        ChannelGuards guards = guards(new ChannelGuards.Pace(256, 0));
        int before = guards.capacity(Channel.SMS);

        List<ChannelGuards.Permit> inFlight = new java.util.ArrayList<>();
        for (int answer = 0; answer < 3; answer++) {
            inFlight.add(guards.acquire(Channel.SMS).orElseThrow());
        }
        for (ChannelGuards.Permit permit : inFlight) {
            nanos.addAndGet(Duration.ofMillis(100).toNanos());
            permit.overloaded(Duration.ofMillis(100).toNanos(), "429", Optional.of(Duration.ofSeconds(2)));
        }

        assertThat(guards.acquire(Channel.SMS)).as("paused as the provider asked: nothing is sent").isEmpty();
        assertThat(guards.openFor(Channel.SMS)).as("its rows wait out the pause").isBetween(Duration.ofMillis(1700),
                Duration.ofSeconds(2));
        assertThat(guards.capacity(Channel.SMS)).as("its rows are still claimed, to be given back within their budget")
                .isPositive();
        assertThat(guards.acquire(Channel.HERO)).as("another channel goes on").isPresent();
        nanos.addAndGet(Duration.ofSeconds(2).plusMillis(1).toNanos());
        assertThat(guards.acquire(Channel.SMS)).as("after the pause").isPresent();
        assertThat(guards.capacity(Channel.SMS)).as("a smaller limit").isLessThan(before);
    }

    private static DispatcherConfig.Circuit circuit() {
        return DispatcherConfig.Circuit.of(50, 100, 100, Duration.ofSeconds(30));
    }
}
