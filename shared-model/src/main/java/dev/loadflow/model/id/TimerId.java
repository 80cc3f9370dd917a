package dev.loadflow.model.id;

import java.util.Objects;

/**
 * The id of a durable timer: {@code tmr:{loadId}:{askId}:{attempt}}, e.g.
 * {@code tmr:481207:ask:eta_request:ping_0700:1}. Scheduling is idempotent on it, and the
 * {@code TimerFired} event id is derived from it ({@link #firedEventId()}).
 */
public record TimerId(String loadId, AskId askId, int attempt) {

    private static final String PREFIX = "tmr:";

    public TimerId {
        InboundIds.requireLoadId(loadId);
        Objects.requireNonNull(askId, "askId");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt starts at 1, got " + attempt);
        }
    }

    public static TimerId of(String loadId, AskId askId, int attempt) {
        return new TimerId(loadId, askId, attempt);
    }

    /** Parses {@code tmr:{loadId}:{askId}:{attempt}}: a load id holds no colon, the attempt is last. */
    public static TimerId parse(String value) {
        if (value == null || !value.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a timer id: " + InboundIds.quote(value));
        }
        int afterLoad = value.indexOf(':', PREFIX.length());
        int beforeAttempt = value.lastIndexOf(':');
        if (afterLoad < 0 || beforeAttempt <= afterLoad) {
            throw new IllegalArgumentException("not a timer id: '" + value + "'");
        }
        try {
            return new TimerId(value.substring(PREFIX.length(), afterLoad),
                    AskId.parse(value.substring(afterLoad + 1, beforeAttempt)),
                    Integer.parseInt(value.substring(beforeAttempt + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a timer id: '" + value + "'", e);
        }
    }

    /** The id of the {@code TimerFired} event this timer publishes: {@code evt:{timerId}}. */
    public String firedEventId() {
        return EventIds.timerFired(this);
    }

    @Override
    public String toString() {
        return PREFIX + loadId + ":" + askId + ":" + attempt;
    }
}
