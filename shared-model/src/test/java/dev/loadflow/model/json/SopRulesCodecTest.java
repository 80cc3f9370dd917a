package dev.loadflow.model.json;

import dev.loadflow.model.action.Urgency;
import dev.loadflow.model.event.Risk;
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

    @Test
    void theFullRulesReadBackAsTheyWereWritten() {
        String json = """
                {"clientName": "Acme Foods", "timeZone": "America/Chicago", "smsHours": {"from": "06:00", "to": "21:00"},
                 "askOn": ["high", "medium"], "attempts": [{"wait": "PT30M", "text": "{clientName}: ETA for {loadId}?"},
                 {"wait": "PT10M", "text": "Attempt {attempt} on {loadId} ({stage})", "urgent": true}], "maxSegments": 2,
                 "heroTaskPriority": "normal", "heroSlackChannel": "#acme"}""";

        SopRules rules = SopRulesCodec.decode(json);

        assertThat(rules.maxAttempts()).isEqualTo(2);
        assertThat(rules.attempt(2).urgent()).isTrue();
        assertThat(rules.text(2, "L-1", "in-transit")).isEqualTo("Attempt 2 on L-1 (in-transit)");
        assertThat(rules.heroTaskPriority()).isEqualTo(Urgency.NORMAL);
        assertThat(rules.askOn()).containsExactlyInAnyOrder(Risk.HIGH, Risk.MEDIUM);
        assertThat(SopRulesCodec.decode(SopRulesCodec.encode(rules))).isEqualTo(rules);
        assertThat(SopRulesCodec.read(SopRulesCodec.encode(rules))).isEqualTo(rules);
    }

    @Test
    void aTextIsCountedInSegmentsAtItsLongestAndAnAccentMakesItUcs2() {
        // 130 GSM-7 characters + a 64-character load id: 194 septets, two segments
        String gsm = "x".repeat(130) + "{loadId}";
        // the same length with one 'ł' (not in GSM-7): UCS-2, 67 units a segment: three
        String ucs2 = "ł" + "x".repeat(129) + "{loadId}";

        assertThat(SopRulesCodec.decode(withText(gsm, 2)).maxSegments()).isEqualTo(2);
        assertThatThrownBy(() -> SopRulesCodec.decode(withText(ucs2, 2)))
                .hasMessageContaining("attempts[0].text: takes up to 3 UCS-2 segments")
                .hasMessageContaining("'ł' is not in the GSM-7 alphabet");
        assertThat(SmsSegments.of("Ünïcode ok? é").gsm7()).as("ï is not GSM-7").isFalse();
        assertThat(SmsSegments.of("{[€]}").units()).as("extension characters count twice").isEqualTo(10);
        assertThat(SmsSegments.of("x".repeat(160)).segments()).isEqualTo(1);
        assertThat(SmsSegments.of("x".repeat(161)).segments()).isEqualTo(2);
    }

    @Test
    void hoursNeedAZoneAndTextsOnlyKnownPlaceholders() {
        assertThatThrownBy(() -> SopRulesCodec.decode("""
                {"smsHours": {"from": "06:00", "to": "06:00"}, "attempts": [{"wait": "PT30M", "text": "Hi {clientName}, {eta}"}],
                 "askOn": ["severe"], "heroTaskPriority": "soon", "heroSlackChannel": "#hero", "retryAfter": "PT5M"}"""))
                .isInstanceOfSatisfying(SopRulesCodec.InvalidRulesException.class, e -> assertThat(e.errors())
                        .extracting(SopRulesCodec.FieldError::field)
                        .containsExactlyInAnyOrder("smsHours", "askOn", "heroTaskPriority", "attempts", "attempts[0].text",
                                "attempts[0].text"));
    }

    private static String withText(String text, int maxSegments) {
        return """
                {"attempts": [{"wait": "PT30M", "text": "%s"}], "maxSegments": %d, "heroSlackChannel": "#hero"}"""
                .formatted(text, maxSegments);
    }
}
