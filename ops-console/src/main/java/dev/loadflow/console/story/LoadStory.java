package dev.loadflow.console.story;

import java.util.List;

/**
 * One load's whole story as the load page shows it: the log in order, each decision with the
 * outbox rows it made (their attempts, failures and receipts), the timers, and the hold when
 * the load is held (null when it is not). Phone numbers are masked for a caller who may only read.
 */
public record LoadStory(String loadId, long version, String stage, String driverPhone, List<Entry> entries,
                        List<Row> otherRows, List<TimerLine> timers, Hold hold, List<Step> steps, List<Ask> openAsks,
                        String startedAt) {

    /**
     * One line of the story: what happened (an inbound event, a fired timer, an action's outcome
     * that led to a new decision, a skipped message) with the decision taken on it and the actions
     * it made, each with its delivery. An action's outcome that changed nothing is not a step of
     * its own: its delivery shows on the action's row.
     *
     * @param at      the time since the story began ({@code +m:ss}, or {@code +h:mm:ss})
     * @param instant when it was recorded, in full
     */
    public record Step(long seq, String at, String instant, String kind, String type, String eventId, String summary,
                       String detail, String decision, String decidedBy, boolean filtered, List<Row> rows, TraceLink trace) {
    }

    /** An ask waiting for the driver: which, at what step, since when, and the timer of its step. */
    public record Ask(String askId, int step, When openedAt, String timerId) {
    }

    /** A log entry: an inbound event, a decision or a skipped message. */
    public record Entry(long seq, String recordedAt, String kind, String type, String entryId, String summary,
                        String detail, String body, TraceLink trace, List<Row> rows) {

        public boolean decision() {
            return "decision".equals(kind);
        }
    }

    /** An outbox row with its failed attempts. */
    public record Row(String outboxId, String actionType, String channel, String status, int attempts,
                      String receipt, String lastFailure, When createdAt, When dispatchedAt, When deadAt,
                      String payload, List<Failure> failures, TraceLink trace) {
    }

    public record Failure(int attempt, When failedAt, String failure, boolean parked) {
    }

    public record TimerLine(String timerId, String status, When fireAt, When firedAt, When cancelledAt,
                            TraceLink trace) {
    }

    /**
     * A time on a page as it reads there: on a load's story since its first entry ({@code +m:ss},
     * {@code +h:mm:ss}, or {@code -m:ss} before it), on a list how long ago; and the instant in
     * full for its tooltip.
     */
    public record When(String at, String instant) {
    }

    /** Why the load is held and at which message. */
    public record Hold(String messageId, String messageType, String reason, When since, String state) {
    }

    /** A trace id, and where a trace viewer shows it (null where none is configured). */
    public record TraceLink(String traceId, String url) {

        public static final TraceLink NONE = new TraceLink(null, null);

        public boolean present() {
            return traceId != null;
        }
    }

    public boolean found() {
        return version > 0 || !otherRows.isEmpty() || !timers.isEmpty() || hold != null;
    }
}
