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

    /**
     * The prefix of a load that keeps one day's SMS from one number no load is assigned to (an
     * unverified sender), named by an opaque digest of the number, never the number.
     */
    public static final String STRANGER = "stranger-";
    /** The prefix of a load that keeps one day's SMS from a driver whose loads could not be told apart. */
    public static final String UNROUTED = "unrouted-";

    private InboundIds() {
    }

    /** Whether {@code loadId} keeps the SMS of a number no load is assigned to ({@link #STRANGER}). */
    public static boolean isStrangerLoad(String loadId) {
        return loadId != null && loadId.startsWith(STRANGER);
    }

    /** Whether {@code loadId} keeps the SMS of a driver no single load could be told for ({@link #UNROUTED}). */
    public static boolean isUnroutedLoad(String loadId) {
        return loadId != null && loadId.startsWith(UNROUTED);
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
