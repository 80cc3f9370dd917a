package dev.loadflow.model.policy;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One client's standard operating procedure: how long to wait for a driver's answer, how many
 * attempts before a Hero takes over, the texts, and the webhooks told of each stage change.
 * {@code etaRequestText} may hold {@code {loadId}} and {@code {attempt}}.
 */
public record SopRules(Duration retryAfter, int maxAttempts, String etaRequestText, String heroSlackChannel,
                       List<URI> stageWebhooks) {

    /** Rules without stage webhooks. */
    public SopRules(Duration retryAfter, int maxAttempts, String etaRequestText, String heroSlackChannel) {
        this(retryAfter, maxAttempts, etaRequestText, heroSlackChannel, List.of());
    }

    public SopRules {
        stageWebhooks = List.copyOf(stageWebhooks);
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(etaRequestText, "etaRequestText");
        Objects.requireNonNull(heroSlackChannel, "heroSlackChannel");
        if (retryAfter.isNegative() || retryAfter.isZero()) {
            throw new IllegalArgumentException("retry-after must be positive, got " + retryAfter);
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("max-attempts must be at least 1, got " + maxAttempts);
        }
    }

    String etaRequest(String loadId, int attempt) {
        return etaRequestText.replace("{loadId}", loadId).replace("{attempt}", Integer.toString(attempt));
    }
}
