package dev.loadflow.model.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.model.policy.SopRules;

import java.net.URI;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A client's SOP rules as stored and as an operator writes them:
 * {@code {"retryAfter": "PT30M", "maxAttempts": 2, "etaRequestText": "...", "heroSlackChannel": "#hero-desk",
 * "stageWebhooks": ["https://..."]}}. Reading checks every field and names each one that is wrong.
 */
public final class SopRulesCodec {

    /** The longest text an SMS may carry through Twilio's Messages API ({@code Body}: 1,600 characters). */
    public static final int MAX_TEXT = 1_600;
    /** The placeholders an ETA request's text may use. */
    public static final Set<String> PLACEHOLDERS = Set.of("{loadId}", "{attempt}");

    private static final Set<String> FIELDS = Set.of("retryAfter", "maxAttempts", "etaRequestText", "heroSlackChannel",
            "stageWebhooks");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{[^}]*}");
    private static final int MAX_ATTEMPTS = 10;
    private static final Duration MAX_WAIT = Duration.ofDays(1);
    private static final int MAX_WEBHOOKS = 10;

    /** The rules as JSON: what is stored, and what {@link #decode} reads back. */
    public record Json(String retryAfter, int maxAttempts, String etaRequestText, String heroSlackChannel,
                       List<String> stageWebhooks) {
    }

    /** A field of the rules that is wrong, and why. */
    public record FieldError(String field, String why) {
    }

    /** Rules that cannot be taken, every wrong field named. */
    public static final class InvalidRulesException extends RuntimeException {

        private final List<FieldError> errors;

        public InvalidRulesException(List<FieldError> errors) {
            super(String.join("; ", errors.stream().map(e -> e.field() + ": " + e.why()).toList()));
            this.errors = List.copyOf(errors);
        }

        public List<FieldError> errors() {
            return errors;
        }
    }

    private SopRulesCodec() {
    }

    public static Json json(SopRules rules) {
        return new Json(rules.retryAfter().toString(), rules.maxAttempts(), rules.etaRequestText(), rules.heroSlackChannel(),
                rules.stageWebhooks().stream().map(URI::toString).toList());
    }

    public static String encode(SopRules rules) {
        try {
            return JsonReader.MAPPER.writeValueAsString(json(rules));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Rules as they were stored: read as written, without the limits an operator's change is held
     * to ({@link #decode}), so that a version stored under earlier limits still decides.
     */
    public static SopRules read(String json) {
        try {
            // a field a later release added is passed over, as envelopes are (a rolling upgrade runs both)
            Json stored = JsonReader.MAPPER.readerFor(Json.class)
                    .without(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).readValue(json);
            return new SopRules(Duration.parse(stored.retryAfter()), stored.maxAttempts(), stored.etaRequestText(),
                    stored.heroSlackChannel(), stored.stageWebhooks() == null ? List.of()
                    : stored.stageWebhooks().stream().map(URI::create).toList());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a stored SOP is not the rules' JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** The rules in {@code json}, or every field that is wrong. */
    public static SopRules decode(String json) {
        try {
            return decode(JsonReader.MAPPER.readTree(json));
        } catch (JsonProcessingException e) {
            throw new InvalidRulesException(List.of(new FieldError("rules", "not JSON: " + e.getOriginalMessage())));
        }
    }

    /** The rules in {@code node}, or every field that is wrong. */
    public static SopRules decode(JsonNode node) {
        List<FieldError> errors = new ArrayList<>();
        if (node == null || !node.isObject()) {
            throw new InvalidRulesException(List.of(new FieldError("rules", "an object of the SOP's fields")));
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                errors.add(new FieldError(name, "not a field of an SOP (" + String.join(", ", FIELDS.stream().sorted().toList()) + ")"));
            }
        }
        Duration retryAfter = retryAfter(node.path("retryAfter"), errors);
        int maxAttempts = maxAttempts(node.path("maxAttempts"), errors);
        String text = etaRequestText(node.path("etaRequestText"), errors);
        String channel = heroSlackChannel(node.path("heroSlackChannel"), errors);
        List<URI> webhooks = stageWebhooks(node.path("stageWebhooks"), errors);
        if (!errors.isEmpty()) {
            throw new InvalidRulesException(errors);
        }
        return new SopRules(retryAfter, maxAttempts, text, channel, webhooks);
    }

    private static Duration retryAfter(JsonNode value, List<FieldError> errors) {
        if (!value.isTextual()) {
            errors.add(new FieldError("retryAfter", "required: how long to wait for the driver's answer, as ISO-8601 (PT30M)"));
            return null;
        }
        try {
            Duration wait = Duration.parse(value.textValue());
            if (wait.isNegative() || wait.isZero() || wait.compareTo(MAX_WAIT) > 0) {
                errors.add(new FieldError("retryAfter", "more than zero and at most " + MAX_WAIT + ", got " + value.textValue()));
            }
            return wait;
        } catch (DateTimeParseException e) {
            errors.add(new FieldError("retryAfter", "an ISO-8601 duration (PT30M), got '" + value.textValue() + "'"));
            return null;
        }
    }

    private static int maxAttempts(JsonNode value, List<FieldError> errors) {
        if (!value.isInt() || value.intValue() < 1 || value.intValue() > MAX_ATTEMPTS) {
            errors.add(new FieldError("maxAttempts", "required: the attempts before a Hero takes over, 1 to " + MAX_ATTEMPTS));
            return 1;
        }
        return value.intValue();
    }

    private static String etaRequestText(JsonNode value, List<FieldError> errors) {
        if (!value.isTextual() || value.textValue().isBlank()) {
            errors.add(new FieldError("etaRequestText", "required: the SMS that asks the driver for an ETA"));
            return null;
        }
        String text = value.textValue();
        if (text.length() > MAX_TEXT) {
            errors.add(new FieldError("etaRequestText", "at most " + MAX_TEXT + " characters, the provider's limit; got "
                    + text.length()));
        }
        Matcher placeholder = PLACEHOLDER.matcher(text);
        while (placeholder.find()) {
            if (!PLACEHOLDERS.contains(placeholder.group())) {
                errors.add(new FieldError("etaRequestText", "unknown placeholder " + placeholder.group() + " (may use "
                        + String.join(", ", PLACEHOLDERS.stream().sorted().toList()) + ")"));
            }
        }
        if (TextRules.firstRefused(text) >= 0) {
            errors.add(new FieldError("etaRequestText", "no control characters"));
        }
        return text;
    }

    private static String heroSlackChannel(JsonNode value, List<FieldError> errors) {
        if (!value.isTextual() || value.textValue().isBlank() || value.textValue().length() > 80) {
            errors.add(new FieldError("heroSlackChannel", "required: the Slack channel of the Hero desk, 1 to 80 characters"));
            return null;
        }
        return value.textValue();
    }

    private static List<URI> stageWebhooks(JsonNode value, List<FieldError> errors) {
        if (value.isMissingNode() || value.isNull()) {
            return List.of();
        }
        if (!value.isArray() || value.size() > MAX_WEBHOOKS) {
            errors.add(new FieldError("stageWebhooks", "a list of at most " + MAX_WEBHOOKS + " URLs"));
            return List.of();
        }
        List<URI> urls = new ArrayList<>();
        for (JsonNode url : value) {
            try {
                URI uri = URI.create(url.asText());
                if (!url.isTextual() || !uri.isAbsolute() || !("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))) {
                    throw new IllegalArgumentException("not an absolute http(s) URL");
                }
                urls.add(uri);
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("stageWebhooks", "an absolute http(s) URL each, got '" + url.asText() + "'"));
            }
        }
        return urls;
    }
}
