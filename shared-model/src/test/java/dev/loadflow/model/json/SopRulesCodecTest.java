package dev.loadflow.model.json;

import dev.loadflow.model.policy.SopRules;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SopRulesCodecTest {

    @Test
    void rulesReadBackAsTheyWereWritten() {
        SopRules rules = new SopRules(Duration.ofMinutes(20), 2, "Load {loadId}, try {attempt}: ETA?", "#hero-a",
                List.of(URI.create("https://tms.example/stages")));

        assertThat(SopRulesCodec.decode(SopRulesCodec.encode(rules))).isEqualTo(rules);
    }

    @Test
    void aStoredVersionIsReadAsWrittenWhateverTheLimitsOfAChangeAreNow() {
        String storedUnderOtherLimits = """
                {"retryAfter": "P2D", "maxAttempts": 12, "etaRequestText": "ETA for {load}?", "heroSlackChannel": "#hero",
                 "stageWebhooks": []}""";

        assertThat(SopRulesCodec.read(storedUnderOtherLimits))
                .isEqualTo(new SopRules(Duration.ofDays(2), 12, "ETA for {load}?", "#hero", List.of()));
        assertThatThrownBy(() -> SopRulesCodec.decode(storedUnderOtherLimits))
                .isInstanceOf(SopRulesCodec.InvalidRulesException.class);
    }

    @Test
    void everyWrongFieldIsNamedWithWhy() {
        assertThatThrownBy(() -> SopRulesCodec.decode("""
                {"retryAfter": "PT0S", "maxAttempts": 11, "etaRequestText": "ETA for {load} {attempt}?",
                 "stageWebhooks": ["ftp://x.example"], "colour": "blue"}"""))
                .isInstanceOfSatisfying(SopRulesCodec.InvalidRulesException.class, e -> assertThat(e.errors())
                        .extracting(SopRulesCodec.FieldError::field)
                        .containsExactlyInAnyOrder("colour", "retryAfter", "maxAttempts", "etaRequestText", "heroSlackChannel",
                                "stageWebhooks"));
    }

    @Test
    void aTextLongerThanTheProviderTakesIsRefused() {
        String tooLong = "x".repeat(SopRulesCodec.MAX_TEXT + 1);

        assertThatThrownBy(() -> SopRulesCodec.decode("""
                {"retryAfter": "PT30M", "maxAttempts": 3, "etaRequestText": "%s", "heroSlackChannel": "#hero-desk"}""".formatted(tooLong)))
                .hasMessageContaining("etaRequestText: at most 1600 characters");
    }
}
