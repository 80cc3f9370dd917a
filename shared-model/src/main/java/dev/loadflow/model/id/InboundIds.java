package dev.loadflow.model.id;

import java.util.regex.Pattern;

/**
 * The rules for identifiers that arrive from outside. A load id is 1 to 64 characters of
 * {@code [A-Za-z0-9_-]}; an inbound event id is 1 to 128 characters of {@code [A-Za-z0-9_.-]}.
 * Neither may hold {@code /} or {@code :}, which delimit the derived ids ({@link ActionKey},
 * {@link TimerId}, {@link AskId}), so every derived id parses back unambiguously.
 */
public final class InboundIds {

    private static final Pattern LOAD_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern EVENT_ID = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

    private InboundIds() {
    }

    public static boolean isValidLoadId(String loadId) {
        return loadId != null && LOAD_ID.matcher(loadId).matches();
    }

    public static boolean isValidEventId(String eventId) {
        return eventId != null && EVENT_ID.matcher(eventId).matches();
    }

    /** Returns {@code loadId} or throws {@link IllegalArgumentException} naming the rule. */
    public static String requireLoadId(String loadId) {
        if (!isValidLoadId(loadId)) {
            throw new IllegalArgumentException(
                    "loadId must be 1 to 64 characters of [A-Za-z0-9_-], got " + quote(loadId));
        }
        return loadId;
    }


    static String quote(String s) {
        return s == null ? "null" : "'" + s + "'";
    }
}
