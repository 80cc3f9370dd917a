package dev.loadflow.service.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.google.i18n.phonenumbers.PhoneNumberUtil;

import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks phone numbers for callers who may read a load but not reach its driver. A number keeps
 * its country calling code and its last two digits: {@code +15550100} → {@code +1***00},
 * {@code +447700900123} → {@code +44***23}. Found in fields and in free text alike: E.164
 * numbers ({@code +} and 4 to 15 digits), and North American numbers written with separators
 * ({@code 312-555-0100}, {@code (312) 555 0100}) → {@code ***00}.
 */
public final class PhoneMask {

    private static final Pattern E164 = Pattern.compile("(?<![\\w+])\\+[1-9][0-9]{3,14}(?![0-9])");
    private static final Pattern NATIONAL = Pattern.compile(
            "(?<![\\w+])(?:\\(\\d{3}\\) ?|\\d{3}[ .-])\\d{3}[ .-]\\d{4}(?![\\w])");
    /** The ITU's assigned country calling codes; no code is a prefix of another. */
    private static final Set<Integer> CALLING_CODES = PhoneNumberUtil.getInstance().getSupportedCallingCodes();

    private PhoneMask() {
    }

    /** {@code text} with each phone number in it masked. */
    public static String mask(String text) {
        if (text == null) {
            return null;
        }
        String masked = replace(E164, text, phone -> "+" + callingCode(phone.substring(1)) + "***" + lastTwo(phone));
        return replace(NATIONAL, masked, phone -> "***" + lastTwo(phone));
    }

    /** A copy of {@code node} with every string in it masked: a tree, since it copies whatever JSON it is given. */
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

    /** The country calling code {@code digits} begin with (1 to 3 digits); the first digit when none is assigned. */
    static String callingCode(String digits) {
        for (int length = 1; length <= 3 && length < digits.length(); length++) {
            if (CALLING_CODES.contains(Integer.parseInt(digits.substring(0, length)))) {
                return digits.substring(0, length);
            }
        }
        return digits.substring(0, 1);
    }

    private static String lastTwo(String phone) {
        return phone.substring(phone.length() - 2);
    }

    private static String replace(Pattern pattern, String text, java.util.function.UnaryOperator<String> masking) {
        Matcher m = pattern.matcher(text);
        if (!m.find()) {
            return text;
        }
        StringBuilder out = new StringBuilder();
        do {
            m.appendReplacement(out, Matcher.quoteReplacement(masking.apply(m.group())));
        } while (m.find());
        return m.appendTail(out).toString();
    }
}
