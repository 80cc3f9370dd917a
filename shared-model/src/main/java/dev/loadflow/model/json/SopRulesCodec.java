package dev.loadflow.model.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.model.action.Urgency;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.policy.SopRules;

import java.net.URI;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A client's SOP rules as stored and as an operator writes them:
 * <pre>{@code
 * {"clientName": "Acme Foods", "timeZone": "America/Chicago", "smsHours": {"from": "06:00", "to": "21:00"},
 *  "askOn": ["high"], "attempts": [{"wait": "PT30M", "text": "..."}, {"wait": "PT15M", "text": "...", "urgent": true}],
 *  "maxSegments": 2, "heroTaskPriority": "urgent", "heroSlackChannel": "#hero-desk", "stageWebhooks": ["https://..."]}
 * }</pre>
 * Instead of {@code attempts}, {@code retryAfter}, {@code maxAttempts} and {@code etaRequestText}
 * give every attempt the same wait and text. {@link #decode} checks every field and names each one
 * that is wrong; {@link #read} reads a stored version as written.
 */
public final class SopRulesCodec {

    /** The longest text an SMS may carry through Twilio's Messages API ({@code Body}: 1,600 characters). */
    public static final int MAX_TEXT = 1_600;
    /** The placeholders a text may use. */
    public static final Set<String> PLACEHOLDERS = Set.of("{loadId}", "{attempt}", "{stage}", "{clientName}");

    private static final Set<String> FIELDS = Set.of("clientName", "timeZone", "smsHours", "askOn", "attempts",
            "retryAfter", "maxAttempts", "etaRequestText", "maxSegments", "heroTaskPriority", "heroSlackChannel",
            "stageWebhooks");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{[^}]*}");
    private static final int MAX_ATTEMPTS = 10;
    private static final Duration MAX_WAIT = Duration.ofDays(1);
    private static final int MAX_WEBHOOKS = 10;
    private static final int MAX_NAME = 80;
    /** The longest values a text's placeholders may take: a load id and a stage name of 64 characters. */
    private static final String LONGEST_LOAD_ID = "L".repeat(64);
    private static final String LONGEST_STAGE = "S".repeat(EventCodec.MAX_STAGE);

    /** The rules as JSON: what is stored, and what {@link #decode} reads back. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Json(String clientName, String timeZone, Hours smsHours, List<String> askOn, List<AttemptJson> attempts,
                       int maxSegments, String heroTaskPriority, String heroSlackChannel, List<String> stageWebhooks) {
    }

    /** The SMS hours, local times as {@code HH:mm}. */
    public record Hours(String from, String to) {
    }

    /** One attempt: its wait (ISO-8601), its text, and whether it is texted outside the SMS hours. */
    public record AttemptJson(@JsonProperty("wait") String waitFor, String text, boolean urgent) {
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
        return new Json(rules.clientName(), rules.timeZone().getId(),
                rules.smsHours() == null ? null : new Hours(rules.smsHours().from().toString(), rules.smsHours().to().toString()),
                rules.askOn().stream().map(Risk::wire).toList(),
                rules.attempts().stream().map(a -> new AttemptJson(a.waitFor().toString(), a.text(), a.urgent())).toList(),
                rules.maxSegments(), rules.heroTaskPriority().wire(), rules.heroSlackChannel(),
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
     * to ({@link #decode}), so that a version stored under earlier limits still decides. A field a
     * later release added is passed over, as envelopes are (a rolling upgrade runs both).
     */
    public static SopRules read(String json) {
        try {
            return rules(JsonReader.MAPPER.readTree(json), new Fields(false));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a stored SOP is not the rules' JSON: " + e.getOriginalMessage(), e);
        } catch (InvalidRulesException e) {
            throw new IllegalStateException("a stored SOP cannot be read: " + e.getMessage(), e);
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
        return rules(node, new Fields(true));
    }

    /** The errors found so far; {@code strict} holds values to the limits of an operator's change. */
    private record Fields(boolean strict, List<FieldError> errors) {
        Fields(boolean strict) {
            this(strict, new ArrayList<>());
        }

        void wrong(String field, String why) {
            errors.add(new FieldError(field, why));
        }
    }

    private static SopRules rules(JsonNode node, Fields fields) {
        if (node == null || !node.isObject()) {
            throw new InvalidRulesException(List.of(new FieldError("rules", "an object of the SOP's fields")));
        }
        if (fields.strict()) {
            for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!FIELDS.contains(name)) {
                    fields.wrong(name, "not a field of an SOP (" + String.join(", ", FIELDS.stream().sorted().toList()) + ")");
                }
            }
        }
        String clientName = clientName(node.path("clientName"), fields);
        ZoneId zone = timeZone(node.path("timeZone"), fields);
        SopRules.SmsHours hours = smsHours(node.path("smsHours"), fields);
        if (hours != null && node.path("timeZone").isMissingNode() && fields.strict()) {
            fields.wrong("timeZone", "required with smsHours: the client's time zone (America/Chicago)");
        }
        Set<Risk> askOn = askOn(node.path("askOn"), fields);
        List<SopRules.Attempt> attempts = attempts(node, fields);
        int maxSegments = maxSegments(node.path("maxSegments"), fields);
        Urgency priority = priority(node.path("heroTaskPriority"), fields);
        String channel = heroSlackChannel(node.path("heroSlackChannel"), fields);
        List<URI> webhooks = stageWebhooks(node.path("stageWebhooks"), fields);
        if (fields.strict() && !node.has("attempts")) {
            checkText("etaRequestText", attempts.getFirst().text(), clientName, maxSegments, fields);
        } else if (fields.strict()) {
            for (int i = 0; i < attempts.size(); i++) {
                checkText("attempts[" + i + "].text", attempts.get(i).text(), clientName, maxSegments, fields);
            }
        }
        if (!fields.errors().isEmpty()) {
            throw new InvalidRulesException(fields.errors());
        }
        return new SopRules(clientName, zone, hours, askOn, attempts, maxSegments, priority, channel, webhooks);
    }

    private static String clientName(JsonNode value, Fields fields) {
        if (value.isMissingNode() || value.isNull()) {
            return null;
        }
        if (!value.isTextual() || value.textValue().isBlank() || value.textValue().length() > MAX_NAME
                || TextRules.firstRefused(value.textValue()) >= 0) {
            fields.wrong("clientName", "the client's name as drivers know it, 1 to " + MAX_NAME + " characters");
            return null;
        }
        return value.textValue();
    }

    private static ZoneId timeZone(JsonNode value, Fields fields) {
        if (value.isMissingNode() || value.isNull()) {
            return SopRules.UTC;
        }
        try {
            return ZoneId.of(value.asText());
        } catch (DateTimeException e) {
            fields.wrong("timeZone", "a time zone of the IANA database (America/Chicago), got '" + value.asText() + "'");
            return SopRules.UTC;
        }
    }

    private static SopRules.SmsHours smsHours(JsonNode value, Fields fields) {
        if (value.isMissingNode() || value.isNull()) {
            return null;
        }
        Optional<LocalTime> from = localTime(value.path("from"));
        Optional<LocalTime> to = localTime(value.path("to"));
        if (!value.isObject() || from.isEmpty() || to.isEmpty() || from.equals(to)) {
            fields.wrong("smsHours", "{\"from\": \"06:00\", \"to\": \"21:00\"}: two different local times (HH:mm); "
                    + "from after to spans midnight");
            return null;
        }
        return new SopRules.SmsHours(from.get(), to.get());
    }

    private static Optional<LocalTime> localTime(JsonNode value) {
        try {
            return value.isTextual() ? Optional.of(LocalTime.parse(value.textValue())) : Optional.empty();
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static Set<Risk> askOn(JsonNode value, Fields fields) {
        if (value.isMissingNode() || value.isNull()) {
            return EnumSet.of(Risk.HIGH);
        }
        Set<Risk> risks = EnumSet.noneOf(Risk.class);
        if (!value.isArray()) {
            fields.wrong("askOn", "a list of the risk levels whose pings open an ETA ask (" + risks() + ")");
            return risks;
        }
        for (JsonNode risk : value) {
            Optional<Risk> known = Risk.fromWire(risk.asText());
            if (known.isEmpty() || !risk.isTextual()) {
                fields.wrong("askOn", "a risk level (" + risks() + "), got '" + risk.asText() + "'");
            } else {
                risks.add(known.get());
            }
        }
        return risks;
    }

    private static String risks() {
        return String.join(", ", EnumSet.allOf(Risk.class).stream().map(Risk::wire).toList());
    }

    private static List<SopRules.Attempt> attempts(JsonNode node, Fields fields) {
        JsonNode attempts = node.path("attempts");
        boolean same = node.has("retryAfter") || node.has("maxAttempts") || node.has("etaRequestText");
        if (!attempts.isMissingNode()) {
            if (same && fields.strict()) {
                fields.wrong("attempts", "either attempts or retryAfter, maxAttempts and etaRequestText, not both");
            }
            if (!attempts.isArray() || attempts.isEmpty() || (fields.strict() && attempts.size() > MAX_ATTEMPTS)) {
                fields.wrong("attempts", "a list of 1 to " + MAX_ATTEMPTS + " attempts, each {\"wait\", \"text\", \"urgent\"}");
                return List.of(placeholderAttempt());
            }
            List<SopRules.Attempt> list = new ArrayList<>();
            for (int i = 0; i < attempts.size(); i++) {
                JsonNode attempt = attempts.get(i);
                Duration wait = wait("attempts[" + i + "].wait", attempt.path("wait"), fields);
                String text = text("attempts[" + i + "].text", attempt.path("text"), fields);
                JsonNode urgent = attempt.path("urgent");
                if (!urgent.isMissingNode() && !urgent.isBoolean()) {
                    fields.wrong("attempts[" + i + "].urgent", "true or false: whether it is texted outside the SMS hours");
                }
                list.add(attempt(wait, text, urgent.asBoolean()));
            }
            return list;
        }
        Duration wait = wait("retryAfter", node.path("retryAfter"), fields);
        int count = node.path("maxAttempts").asInt(0);
        if (!node.path("maxAttempts").isInt() || count < 1 || (fields.strict() && count > MAX_ATTEMPTS)) {
            fields.wrong("maxAttempts", "required without attempts: the attempts before a Hero takes over, 1 to " + MAX_ATTEMPTS);
            count = 1;
        }
        String text = text("etaRequestText", node.path("etaRequestText"), fields);
        return Collections.nCopies(count, attempt(wait, text, false));
    }

    /** An attempt; a wrong wait or text (null, already named) is stood in for while the rest is checked. */
    private static SopRules.Attempt attempt(Duration wait, String text, boolean urgent) {
        return new SopRules.Attempt(wait == null ? Duration.ofMinutes(1) : wait, text == null ? "" : text, urgent);
    }

    /** Stands in for a wrong list of attempts while the other fields are checked (the rules are then refused). */
    private static SopRules.Attempt placeholderAttempt() {
        return attempt(null, null, false);
    }

    private static Duration wait(String field, JsonNode value, Fields fields) {
        if (!value.isTextual()) {
            fields.wrong(field, "required: how long to wait for the driver's answer, as ISO-8601 (PT30M)");
            return null;
        }
        try {
            Duration wait = Duration.parse(value.textValue());
            if (wait.isNegative() || wait.isZero() || (fields.strict() && wait.compareTo(MAX_WAIT) > 0)) {
                fields.wrong(field, "more than zero and at most " + MAX_WAIT + ", got " + value.textValue());
                return null;
            }
            return wait;
        } catch (DateTimeParseException e) {
            fields.wrong(field, "an ISO-8601 duration (PT30M), got '" + value.textValue() + "'");
            return null;
        }
    }

    private static String text(String field, JsonNode value, Fields fields) {
        if (!value.isTextual() || value.textValue().isBlank()) {
            fields.wrong(field, "required: the SMS that asks the driver for an ETA");
            return null;
        }
        return value.textValue();
    }

    /**
     * Holds a text to the provider's limits at its longest (a load id and a stage of 64 characters,
     * attempt 10): its placeholders, its characters, and its segments.
     */
    private static void checkText(String field, String text, String clientName, int maxSegments, Fields fields) {
        if (text.isEmpty()) {
            return;
        }
        Matcher placeholder = PLACEHOLDER.matcher(text);
        while (placeholder.find()) {
            if (!PLACEHOLDERS.contains(placeholder.group())) {
                fields.wrong(field, "unknown placeholder " + placeholder.group() + " (may use "
                        + String.join(", ", PLACEHOLDERS.stream().sorted().toList()) + ")");
            } else if (placeholder.group().equals("{clientName}") && clientName == null) {
                fields.wrong(field, "uses {clientName}, but the SOP has no clientName");
            }
        }
        if (TextRules.firstRefused(text) >= 0) {
            fields.wrong(field, "no control characters");
            return;
        }
        String longest = SopRules.render(text, LONGEST_LOAD_ID, MAX_ATTEMPTS, LONGEST_STAGE, clientName);
        if (longest.length() > MAX_TEXT) {
            fields.wrong(field, "at most " + MAX_TEXT + " characters once its placeholders are filled (the provider's limit); "
                    + "up to " + longest.length());
            return;
        }
        SmsSegments segments = SmsSegments.of(longest);
        if (segments.segments() > maxSegments) {
            fields.wrong(field, "takes up to " + segments.segments() + " " + segments.encoding() + " segments once its "
                    + "placeholders are filled (a load id and a stage of 64 characters), more than maxSegments ("
                    + maxSegments + ")" + (segments.gsm7() ? "" : "; '" + longest.charAt(segments.firstOutside())
                    + "' is not in the GSM-7 alphabet, so the whole text goes as UCS-2"));
        }
    }

    private static int maxSegments(JsonNode value, Fields fields) {
        if (value.isMissingNode() || value.isNull()) {
            return SopRules.DEFAULT_MAX_SEGMENTS;
        }
        if (!value.isInt() || value.intValue() < 1 || value.intValue() > SopRules.DEFAULT_MAX_SEGMENTS) {
            fields.wrong("maxSegments", "the most SMS segments a text may take, 1 to " + SopRules.DEFAULT_MAX_SEGMENTS);
            return SopRules.DEFAULT_MAX_SEGMENTS;
        }
        return value.intValue();
    }

    private static Urgency priority(JsonNode value, Fields fields) {
        if (value.isMissingNode() || value.isNull()) {
            return Urgency.URGENT;
        }
        try {
            return Urgency.fromWire(value.asText());
        } catch (IllegalArgumentException e) {
            fields.wrong("heroTaskPriority", "urgent or normal: the Hero task's priority when the attempts are spent");
            return Urgency.URGENT;
        }
    }

    private static String heroSlackChannel(JsonNode value, Fields fields) {
        if (!value.isTextual() || value.textValue().isBlank() || value.textValue().length() > MAX_NAME) {
            fields.wrong("heroSlackChannel", "required: the Slack channel of the Hero desk, 1 to " + MAX_NAME + " characters");
            return "-";
        }
        return value.textValue();
    }

    private static List<URI> stageWebhooks(JsonNode value, Fields fields) {
        if (value.isMissingNode() || value.isNull()) {
            return List.of();
        }
        if (!value.isArray() || (fields.strict() && value.size() > MAX_WEBHOOKS)) {
            fields.wrong("stageWebhooks", "a list of at most " + MAX_WEBHOOKS + " URLs");
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
                fields.wrong("stageWebhooks", "an absolute http(s) URL each, got '" + url.asText() + "'");
            }
        }
        return urls;
    }
}
