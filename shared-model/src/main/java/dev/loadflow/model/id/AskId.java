package dev.loadflow.model.id;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The id of one ask (a question the automation put to someone): {@code ask:{askKind}:{sourceEventId}},
 * e.g. {@code ask:eta_request:ping_0700}. Deterministic, so a redelivered event that opens an ask
 * opens the same one.
 */
public record AskId(String kind, String sourceEventId) {

    private static final Pattern KIND = Pattern.compile("[a-z][a-z0-9_]{0,31}");
    private static final String PREFIX = "ask:";

    public AskId {
        if (kind == null || !KIND.matcher(kind).matches()) {
            throw new IllegalArgumentException("askKind must match [a-z][a-z0-9_]{0,31}, got " + InboundIds.quote(kind));
        }
        Objects.requireNonNull(sourceEventId, "sourceEventId");
        if (sourceEventId.isEmpty() || sourceEventId.contains("/")) {
            throw new IllegalArgumentException("sourceEventId must be non-empty and hold no '/', got '" + sourceEventId + "'");
        }
    }

    public static AskId of(String kind, String sourceEventId) {
        return new AskId(kind, sourceEventId);
    }

    /** Parses {@code ask:{kind}:{sourceEventId}}; the source event id may itself hold colons. */
    public static AskId parse(String value) {
        if (value == null || !value.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not an ask id: " + InboundIds.quote(value));
        }
        int colon = value.indexOf(':', PREFIX.length());
        if (colon < 0) {
            throw new IllegalArgumentException("not an ask id: '" + value + "'");
        }
        return new AskId(value.substring(PREFIX.length(), colon), value.substring(colon + 1));
    }

    @Override
    public String toString() {
        return PREFIX + kind + ":" + sourceEventId;
    }
}
