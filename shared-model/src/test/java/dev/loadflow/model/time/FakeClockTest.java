package dev.loadflow.model.time;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FakeClockTest {

    @Test
    void standsStillUntilAdvanced() {
        FakeClock clock = FakeClock.at("2026-11-30T07:00:00Z");

        assertThat(clock.instant()).isEqualTo(clock.instant()).isEqualTo(Instant.parse("2026-11-30T07:00:00Z"));
        assertThat(clock.advance(Duration.ofMinutes(30))).isEqualTo(Instant.parse("2026-11-30T07:30:00Z"));
        assertThat(clock.set(Instant.parse("2026-11-30T08:01:00Z"))).isEqualTo(clock.instant());
    }

    @Test
    void neverRunsBack() {
        FakeClock clock = FakeClock.at("2026-11-30T07:00:00Z");

        assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> clock.set(Instant.parse("2026-11-30T06:59:59Z"))).isInstanceOf(IllegalArgumentException.class);
        assertThat(clock.instant()).isEqualTo(Instant.parse("2026-11-30T07:00:00Z"));
    }

    @Test
    void aZonedCopySharesTheTime() {
        FakeClock clock = FakeClock.at("2026-11-30T07:00:00Z");
        var chicago = clock.withZone(ZoneId.of("America/Chicago"));

        clock.advance(Duration.ofHours(1));

        assertThat(chicago.instant()).isEqualTo(Instant.parse("2026-11-30T08:00:00Z"));
        assertThat(chicago.getZone()).isEqualTo(ZoneId.of("America/Chicago"));
    }
}
