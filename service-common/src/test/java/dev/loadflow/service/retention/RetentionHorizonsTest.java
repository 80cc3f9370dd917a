package dev.loadflow.service.retention;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The retention that dedupe depends on: the shipped defaults hold, and a shorter setting stops the start naming its key. */
class RetentionHorizonsTest {

    private static RetentionConfig retention(String dispatched, String dead, String processed, String loadLifetime) {
        return new RetentionConfig() {
            @Override
            public Duration dispatched() {
                return Duration.parse(dispatched);
            }

            @Override
            public Duration timers() {
                return Duration.ofDays(7);
            }

            @Override
            public Duration log() {
                return Duration.ofDays(90);
            }

            @Override
            public Duration dead() {
                return Duration.parse(dead);
            }

            @Override
            public Duration processed() {
                return Duration.parse(processed);
            }

            @Override
            public Duration loadLifetime() {
                return Duration.parse(loadLifetime);
            }

            @Override
            public Duration interval() {
                return Duration.ofHours(1);
            }

            @Override
            public Optional<Set<RetentionJob.Part>> parts() {
                return Optional.empty();
            }

            @Override
            public Optional<String> username() {
                return Optional.empty();
            }

            @Override
            public Optional<String> password() {
                return Optional.empty();
            }

            @Override
            public Optional<String> exportDir() {
                return Optional.empty();
            }

            @Override
            public int batchSize() {
                return 500;
            }

            @Override
            public int maxConnections() {
                return 1;
            }
        };
    }

    @Test
    void theShippedDefaultsHold() {
        assertThat(RetentionHorizons.problems(retention("P15D", "P30D", "P31D", "P14D"))).isEmpty();
    }

    @Test
    void aHorizonShorterThanWhatDependsOnItStopsTheStartNamingItsKey() {
        assertThat(RetentionHorizons.problems(retention("P7D", "P30D", "P31D", "P14D"))).singleElement()
                .satisfies(p -> assertThat(p).startsWith("loadflow.retention.dispatched (PT168H) is shorter than "
                        + "loadflow.retention.load-lifetime"));
        assertThat(RetentionHorizons.problems(retention("P15D", "P30D", "P14D", "P14D"))).singleElement()
                .satisfies(p -> assertThat(p).startsWith("loadflow.retention.processed (PT336H) must be longer than loadflow.retention.dead"));
        assertThatThrownBy(() -> RetentionHorizons.check(retention("P15D", "P7D", "P10D", "P14D")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("loadflow.retention.processed (PT240H) is shorter");
    }
}
