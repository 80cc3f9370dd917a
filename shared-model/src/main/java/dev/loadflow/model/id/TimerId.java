package dev.loadflow.model.id;

import java.util.Objects;

/**
 * The id of a durable timer: {@code tmr:{loadId}:{askId}:{attempt}}, e.g.
 * {@code tmr:481207:ask:eta_request:ping_0700:1}, the wait for an answer to an attempt; or
 * {@code tmr:{loadId}:win:{askId}:{attempt}} ({@code window}), the wait for the client's SMS hours
 * before the attempt's text goes out. Scheduling is idempotent on it, and the {@code TimerFired}
 * event id is derived from it ({@link #firedEventId()}).
 */
public record TimerId(String loadId, AskId askId, int attempt, boolean window) {

    private static final String PREFIX = "tmr:";
    private static final String WINDOW = "win:";

    public TimerId {
        InboundIds.requireLoadId(loadId);
        Objects.requireNonNull(askId, "askId");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt starts at 1, got " + attempt);
        }
    }

    public TimerId(String loadId, AskId askId, int attempt) {
        this(loadId, askId, attempt, false);
    }

    public static TimerId of(String loadId, AskId askId, int attempt) {
        return new TimerId(loadId, askId, attempt, false);
    }

    /** The wait for the SMS hours before attempt {@code attempt}'s text goes out. */
    public static TimerId window(String loadId, AskId askId, int attempt) {
        return new TimerId(loadId, askId, attempt, true);
    }

    /**
     * The subject of the actions that set and cancel this timer: its ask id, or {@code win:{askId}}
     * for a window's wait (so that the wait and the attempt's own timer have keys of their own).
     */
    public String subject() {
        return window ? WINDOW + askId : askId.toString();
    }

    /** Parses {@code tmr:{loadId}:[win:]{askId}:{attempt}}: a load id holds no colon, the attempt is last. */
    public static TimerId parse(String value) {
        if (value == null || !value.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a timer id: " + InboundIds.quote(value));
        }
        int afterLoad = value.indexOf(':', PREFIX.length());
        int beforeAttempt = value.lastIndexOf(':');
        if (afterLoad < 0 || beforeAttempt <= afterLoad) {
            throw new IllegalArgumentException("not a timer id: '" + value + "'");
        }
        String ask = value.substring(afterLoad + 1, beforeAttempt);
        boolean window = ask.startsWith(WINDOW);
        try {
            return new TimerId(value.substring(PREFIX.length(), afterLoad),
                    AskId.parse(window ? ask.substring(WINDOW.length()) : ask),
                    Integer.parseInt(value.substring(beforeAttempt + 1)), window);
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
        return PREFIX + loadId + ":" + subject() + ":" + attempt;
    }
}
