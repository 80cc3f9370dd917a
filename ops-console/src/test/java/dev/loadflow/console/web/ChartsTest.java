package dev.loadflow.console.web;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ChartsTest {

    @Test
    void theTopLineIsARoundNumberAboveTheHighestValue() {
        assertThat(Charts.niceCeiling(0)).isEqualTo(1);
        assertThat(Charts.niceCeiling(0.04)).as("lateness under a second reads against 1 s").isEqualTo(1);
        assertThat(Charts.niceCeiling(3)).isEqualTo(5);
        assertThat(Charts.niceCeiling(12)).isEqualTo(20);
        assertThat(Charts.niceCeiling(1_500)).isEqualTo(2_000);
    }

    @Test
    void aChartSaysItsFiguresInWordsAndEscapesWhatItIsGiven() {
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("sms", new double[]{0, 3, 1_200, 4});
        series.put("<b>hero</b>", new double[]{0, 0, 1, 0});

        Charts.Chart chart = Charts.lines("sent", "Actions delivered & more", "rows", Duration.ofHours(1), Duration.ofMinutes(15), series);

        assertThat(chart.summary()).isEqualTo("sms: 1,207 in all, at most 1,200 in 15 minutes; <b>hero</b>: 1 in all, at most 1 in 15 minutes");
        assertThat(chart.svg()).startsWith("<svg class=\"chart\" viewBox=\"0 0 440 170\" role=\"img\" aria-labelledby=\"sent-title sent-desc\">")
                .contains("<title id=\"sent-title\">Actions delivered &amp; more</title>")
                .contains("&lt;b&gt;hero&lt;/b&gt;").doesNotContain("<b>")
                .contains(">2,000</text>").contains(">now</text>")
                .containsOnlyOnce("stroke=\"#1f5fbf\" points=").containsOnlyOnce("stroke=\"#b42318\" points=");
    }

    @Test
    void secondsAreGivenAsTheHighestValue() {
        Charts.Chart chart = Charts.lines("lateness", "Timer lateness", "s", Duration.ofHours(6), Duration.ofMinutes(15),
                Map.of("latest", new double[]{0.5, 12, 3}));

        assertThat(chart.summary()).isEqualTo("latest: at most 12 s");
        assertThat(chart.svg()).contains(">20 s</text>").contains(">−6 h</text>");
    }
}
