package dev.loadflow.dispatcher.send;

import dev.loadflow.model.time.FakeClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The channel protocol's classification of channel answers. */
class SendResultTest {

    private final FakeClock clock = FakeClock.at("2026-11-30T07:00:00Z");

    @ParameterizedTest
    @ValueSource(ints = {200, 201, 202, 204})
    void twoHundredsAreDeliveredWithTheBodyAsReceipt(int status) {
        assertThat(SendResult.of(status, "{\"id\":1}", null, clock)).isEqualTo(new SendResult.Delivered("{\"id\":1}"));
    }

    @ParameterizedTest
    @ValueSource(ints = {408, 425, 429, 500, 502, 503, 504})
    void timeoutsThrottlingAndServerErrorsAreRetryable(int status) {
        assertThat(SendResult.of(status, "busy", null, clock)).isInstanceOf(SendResult.Retryable.class);
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 404, 409, 410, 422})
    void otherClientErrorsArePermanent(int status) {
        assertThat(SendResult.of(status, "no", null, clock)).isInstanceOf(SendResult.Permanent.class);
    }

    @Test
    void retryAfterIsReadAsSecondsOrAsAnHttpDate() {
        assertThat(SendResult.retryAfter("120", clock)).contains(Duration.ofSeconds(120));
        assertThat(SendResult.retryAfter("Mon, 30 Nov 2026 07:00:30 GMT", clock)).contains(Duration.ofSeconds(30));
        assertThat(SendResult.retryAfter("Mon, 30 Nov 2026 06:00:00 GMT", clock)).contains(Duration.ZERO);
        assertThat(SendResult.retryAfter("soon", clock)).isEmpty();
        assertThat(SendResult.of(429, "", "7", clock))
                .isEqualTo(new SendResult.Retryable("429", Optional.of(Duration.ofSeconds(7)), 429));
        assertThat(((SendResult.Retryable) SendResult.of(503, "", null, clock)).overloaded()).isTrue();
        assertThat(((SendResult.Retryable) SendResult.of(500, "", null, clock)).overloaded()).isFalse();
    }
}
