package dev.loadflow.service.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Masks E.164 phone numbers for callers who may read a load but not reach its driver. */
public final class PhoneMask {

    private static final Pattern PHONE = Pattern.compile("\\+[1-9][0-9]{5,14}");

    private PhoneMask() {
    }

    /** {@code text} with each phone number in it masked: {@code +15550100} → {@code +1555***0100}. */
    public static String mask(String text) {
        if (text == null) {
            return null;
        }
        Matcher m = PHONE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String phone = m.group();
            String masked = phone.length() >= 9
                    ? phone.substring(0, 5) + "***" + phone.substring(phone.length() - 4)
                    : "+***" + phone.substring(phone.length() - 2);
            m.appendReplacement(out, Matcher.quoteReplacement(masked));
        }
        return m.appendTail(out).toString();
    }

    /** A copy of {@code node} with every string in it masked. */
    public static JsonNode mask(JsonNode node) {
        return switch (node) {
            case ObjectNode object -> {
                ObjectNode copy = object.objectNode();
                object.properties().forEach(field -> copy.set(field.getKey(), mask(field.getValue())));
                yield copy;
            }
            case ArrayNode array -> {
                ArrayNode copy = array.arrayNode();
                array.forEach(element -> copy.add(mask(element)));
                yield copy;
            }
            case TextNode text -> TextNode.valueOf(mask(text.textValue()));
            default -> node;
        };
    }
}
