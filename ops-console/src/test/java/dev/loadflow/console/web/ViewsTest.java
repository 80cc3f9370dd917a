package dev.loadflow.console.web;

import dev.loadflow.console.story.LoadStory;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class ViewsTest {

    private static final Instant NOW = Instant.parse("2026-12-03T08:00:00Z");

    private static String ago(Duration before) {
        return Views.ago(NOW.minus(before), NOW).at();
    }

    @Test
    void aListSaysHowLongAgoInTheUnitsOnCallReadsAndKeepsTheInstantForItsTooltip() {
        assertThat(ago(Duration.ofSeconds(42))).isEqualTo("42 s ago");
        assertThat(ago(Duration.ofSeconds(725))).isEqualTo("12 min 5 s ago");
        assertThat(ago(Duration.ofMinutes(182))).isEqualTo("3 h 2 min ago");
        assertThat(ago(Duration.ofHours(52).plusMinutes(30))).as("past a day, days and hours").isEqualTo("2 d 4 h ago");
        assertThat(Views.ago(NOW.plusSeconds(40), NOW)).as("a time still ahead")
                .isEqualTo(new LoadStory.When("in 40 s", "2026-12-03T08:00:40Z"));
        assertThat(Views.ago(NOW.minusSeconds(5), NOW).instant()).isEqualTo("2026-12-03T07:59:55Z");
        assertThat(Views.ago(null, NOW)).as("never happened: nothing shown").isNull();
    }
}
