package dev.loadflow.model.json;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Iterator;
import java.util.Map;

/**
 * What text from outside may hold. No control character other than tab, line feed and carriage
 * return: PostgreSQL's {@code jsonb} and {@code text} refuse U+0000, and the others forge log
 * lines and messages. No lone surrogate: it is no character at all, and UTF-8 cannot encode it.
 */
public final class TextRules {

    private TextRules() {
    }

    /** The index of the first character {@code text} may not hold, or -1 when it holds none. */
    public static int firstRefused(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
                return i;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return i;
            }
            if (Character.isLowSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Refuses every string of {@code node}, names and values at any depth, that holds a character
     * {@link #firstRefused refused}; the exception names the field ({@code path} is the node's).
     */
    public static void requirePrintable(JsonNode node, String path) {
        if (node.isTextual()) {
            requirePrintable(node.textValue(), path);
        } else if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                String fieldPath = "$".equals(path) ? field.getKey() : path + "." + field.getKey();
                requirePrintable(field.getKey(), fieldPath);
                requirePrintable(field.getValue(), fieldPath);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                requirePrintable(node.get(i), path + "[" + i + "]");
            }
        }
    }

    private static void requirePrintable(String text, String path) {
        int at = firstRefused(text);
        if (at >= 0) {
            throw new InvalidJsonException(printable(path), String.format(
                    "holds U+%04X at character %d: control characters (other than tab, line feed and carriage return)"
                            + " and lone surrogates are refused", (int) text.charAt(at), at));
        }
    }

    /** {@code text} with each refused character replaced by U+FFFD, fit to be quoted in a message. */
    public static String printable(String text) {
        if (firstRefused(text) < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.append(c).append(text.charAt(++i));
            } else {
                out.append(c < 0x20 && c != '\t' && c != '\n' && c != '\r' || Character.isSurrogate(c) ? '\uFFFD' : c);
            }
        }
        return out.toString();
    }
}
