package dev.loadflow.model.json;

/**
 * How many SMS segments a text takes, as carriers count them: a text of GSM-7 characters (the GSM
 * 03.38 default alphabet; each character of its extension table counts twice) takes one segment
 * up to 160 septets, else one per 153; a text with any other character goes as UCS-2, one segment
 * up to 70 UTF-16 units, else one per 67.
 */
public record SmsSegments(boolean gsm7, int units, int segments, int firstOutside) {

    private static final String BASIC = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
            + "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
    private static final String EXTENSION = "\f^{}\\[~]|€";

    /** The segments of {@code text}. {@code firstOutside} is the index of its first non-GSM-7 character, or -1. */
    public static SmsSegments of(String text) {
        int septets = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (BASIC.indexOf(c) >= 0) {
                septets++;
            } else if (EXTENSION.indexOf(c) >= 0) {
                septets += 2;
            } else {
                int units = text.length();
                return new SmsSegments(false, units, units <= 70 ? 1 : (units + 66) / 67, i);
            }
        }
        return new SmsSegments(true, septets, septets <= 160 ? 1 : (septets + 152) / 153, -1);
    }

    /** The encoding's name, as a provider's documentation says it. */
    public String encoding() {
        return gsm7 ? "GSM-7" : "UCS-2";
    }
}
