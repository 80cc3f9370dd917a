package dev.loadflow.model.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Set;

/**
 * Strict reading of one JSON object: required fields must be there with the right JSON type,
 * unknown fields are refused, and every error names the field's path. Works on Jackson's tree
 * model only, so nothing is bound by reflection (native-safe).
 */
public final class JsonReader {

    /** The one mapper of the project: tree model only, no data binding. */
    public static final ObjectMapper MAPPER = new ObjectMapper();

    private final JsonNode node;
    private final String path;

    private JsonReader(JsonNode node, String path) {
        this.node = node;
        this.path = path;
    }

    /** Parses {@code json}, which must be one JSON object. */
    public static JsonReader parse(String json) {
        if (json == null || json.isBlank()) {
            throw new InvalidJsonException("$", "the body is empty; expected a JSON object");
        }
        try {
            return of(MAPPER.readTree(json), "$");
        } catch (JsonProcessingException e) {
            throw new InvalidJsonException("$", "malformed JSON: " + e.getOriginalMessage());
        }
    }

    /** Reads {@code node}, which must be a JSON object, found at {@code path}. */
    public static JsonReader of(JsonNode node, String path) {
        if (node == null || !node.isObject()) {
            throw new InvalidJsonException(path, "expected a JSON object, got " + describe(node));
        }
        return new JsonReader(node, path);
    }

    public JsonNode node() {
        return node;
    }

    /** Refuses any field not in {@code allowed}: a typo must not silently drop data. */
    public JsonReader allowOnly(Set<String> allowed) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new InvalidJsonException(field(name), "unknown field; allowed here: " + String.join(", ", allowed.stream().sorted().toList()));
            }
        }
        return this;
    }

    public boolean has(String name) {
        JsonNode value = node.get(name);
        return value != null && !value.isNull();
    }

    public String text(String name) {
        JsonNode value = required(name, JsonNodeType.STRING);
        if (value.textValue().isBlank()) {
            throw new InvalidJsonException(field(name), "must not be blank");
        }
        return value.textValue();
    }

    /** A non-blank string of at most {@code maxLength} characters. */
    public String text(String name, int maxLength) {
        return atMost(name, text(name), maxLength);
    }

    /** A string that may be empty but must be present. */
    public String anyText(String name) {
        return required(name, JsonNodeType.STRING).textValue();
    }

    /** A string that may be empty but must be present, of at most {@code maxLength} characters. */
    public String anyText(String name, int maxLength) {
        return atMost(name, anyText(name), maxLength);
    }

    private String atMost(String name, String value, int maxLength) {
        if (value.length() > maxLength) {
            throw new InvalidJsonException(field(name), "at most " + maxLength + " characters, got " + value.length());
        }
        return value;
    }

    public String optionalText(String name) {
        return has(name) ? text(name) : null;
    }

    public Instant instant(String name) {
        String value = required(name, JsonNodeType.STRING).textValue();
        try {
            return OffsetDateTime.parse(value, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        } catch (DateTimeParseException e) {
            throw new InvalidJsonException(field(name),
                    "not an ISO-8601 timestamp with an offset (e.g. 2026-11-30T07:00:00Z): '" + value + "'");
        }
    }

    public double number(String name) {
        return required(name, JsonNodeType.NUMBER).doubleValue();
    }

    public double number(String name, double min, double max) {
        double value = number(name);
        if (value < min || value > max) {
            throw new InvalidJsonException(field(name), "must lie between " + min + " and " + max + ", got " + value);
        }
        return value;
    }

    public int integer(String name) {
        JsonNode value = required(name, JsonNodeType.NUMBER);
        if (!value.canConvertToInt() || !value.isIntegralNumber()) {
            throw new InvalidJsonException(field(name), "expected a whole number, got " + value);
        }
        return value.intValue();
    }

    public boolean bool(String name) {
        return required(name, JsonNodeType.BOOLEAN).booleanValue();
    }

    public JsonReader object(String name) {
        if (!has(name)) {
            throw new InvalidJsonException(field(name), "missing");
        }
        return of(node.get(name), field(name));
    }

    public JsonNode array(String name) {
        return required(name, JsonNodeType.ARRAY);
    }

    /** The path of field {@code name} of this object, for error messages. */
    public String field(String name) {
        return "$".equals(path) ? name : path + "." + name;
    }

    private JsonNode required(String name, JsonNodeType type) {
        JsonNode value = node.get(name);
        if (value == null || value.isNull()) {
            throw new InvalidJsonException(field(name), "missing");
        }
        if (value.getNodeType() != type) {
            throw new InvalidJsonException(field(name), "expected a " + type.name().toLowerCase() + ", got " + describe(value));
        }
        return value;
    }

    private static String describe(JsonNode node) {
        return node == null || node.isMissingNode() ? "nothing" : node.getNodeType().name().toLowerCase();
    }
}
