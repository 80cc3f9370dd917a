package dev.loadflow.console.web;

import dev.loadflow.console.story.LoadStory;
import dev.loadflow.service.security.PhoneMask;
import dev.loadflow.store.alert.OpsAlert;
import dev.loadflow.store.audit.AuditEntry;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.queue.HeldLoad;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;

/** What the list pages show of each row, masked for a caller who may only read. */
public final class Views {

    private Views() {
    }

    /**
     * The overview: what needs looking at now (each count with the list it comes from, where
     * there is one, and whether it asks for attention), the charts of the last hours, how often
     * the page refreshes itself and when it was read.
     */
    public record Overview(List<Count> counts, List<Charts.Chart> charts, int refreshSeconds, String readAt) {
    }

    /** One count of the overview; {@code href} null where no page lists its rows. */
    public record Count(String id, String label, String value, String href, boolean attention, String hint) {
    }

    public record Held(String loadId, String messageId, String messageType, String reason, LoadStory.When since, String state) {
        static Held of(HeldLoad held, boolean masked, Instant now) {
            return new Held(held.loadId(), held.messageId(), held.messageType(), mask(masked).apply(held.reason()),
                    ago(held.since(), now), held.state().wire());
        }
    }

    public record Dead(String outboxId, String loadId, String actionType, String channel, int attempts, String lastFailure,
                LoadStory.When deadAt, LoadStory.When acknowledgedAt, String payload) {
        static Dead of(OutboxRow row, boolean masked, Instant now) {
            UnaryOperator<String> mask = mask(masked);
            return new Dead(row.outboxId(), row.loadId(), row.actionType(), row.channel().wire(), row.attempts(),
                    mask.apply(row.lastFailure()), ago(row.deadAt(), now), ago(row.acknowledgedAt(), now), mask.apply(row.payload()));
        }
    }

    /** An ambiguous send: what it was, what happened to it, and since when nobody knows whether it arrived. */
    public record Ambiguous(String outboxId, String loadId, String actionType, String channel, int attempts,
                            String lastFailure, LoadStory.When unsureSince, String payload) {
        static Ambiguous of(OutboxRow row, boolean masked, Instant now) {
            UnaryOperator<String> mask = mask(masked);
            return new Ambiguous(row.outboxId(), row.loadId(), row.actionType(), row.channel().wire(), row.attempts(),
                    mask.apply(row.lastFailure()), ago(row.unsureSince(), now), mask.apply(row.payload()));
        }
    }

    public record Alert(long id, String loadId, String outboxId, String actionType, String kind, String message,
                        LoadStory.When raisedAt) {
        static Alert of(OpsAlert alert, boolean masked, Instant now) {
            return new Alert(alert.id(), alert.loadId(), alert.outboxId(), alert.actionType(), alert.kind(),
                    mask(masked).apply(alert.message()), ago(alert.raisedAt(), now));
        }
    }

    public record Audit(long id, LoadStory.When at, String principal, String service, String action, String target,
                        String params, String result) {
        static Audit of(AuditEntry entry, boolean masked, Instant now) {
            UnaryOperator<String> mask = mask(masked);
            return new Audit(entry.id(), ago(entry.at(), now), entry.principal(), entry.service(), entry.action(),
                    mask.apply(entry.target()), mask.apply(entry.params()), mask.apply(entry.result()));
        }
    }

    /**
     * A page of a list: links to the previous and next page keep the filters.
     *
     * @param query the filters as a query string without {@code page}, e.g. {@code loadId=481207&}
     */
    public record Paging(int page, boolean hasNext, String path, String query) {

        public boolean hasPrevious() {
            return page > 0;
        }

        public String previous() {
            return path + "?" + query + "page=" + (page - 1);
        }

        public String next() {
            return path + "?" + query + "page=" + (page + 1);
        }
    }

    /** The filters of the loads list, as given; {@code active} in hours ("" for any time). */
    public record LoadFilter(String client, String driver, String stage, boolean held, boolean dead, boolean openAsk,
                             String active) {

        public String query() {
            return param("client", client) + param("driver", driver) + param("stage", stage) + (held ? "held=on&" : "")
                    + (dead ? "dead=on&" : "")
                    + (openAsk ? "openAsk=on&" : "") + param("active", active);
        }
    }

    /** A load as the list shows it; the driver's number masked for a viewer. */
    public record FoundLoad(String loadId, String clientId, String driverPhone, String stage, LoadStory.When lastActivity,
                            boolean held, long deadRows, long openTimers) {
        static FoundLoad of(dev.loadflow.store.overview.PgLoadDirectory.Found found, boolean masked, Instant now) {
            return new FoundLoad(found.loadId(), found.clientId(), mask(masked).apply(found.driverPhone()), found.stage(),
                    ago(found.lastActivity(), now), found.held(), found.deadRows(), found.openTimers());
        }
    }

    /** The filters of a dead-row list or replay, as given. */
    public record DeadFilter(String loadId, String actionType, String since, String until) {

        public String query() {
            return param("loadId", loadId) + param("actionType", actionType) + param("since", since) + param("until", until);
        }

        /** {@code since} as a date picker shows it (UTC, to the minute). */
        public String sinceLocal() {
            return picker(since);
        }

        public String untilLocal() {
            return picker(until);
        }
    }

    /** An outbox row due and not delivered: how long it has been due, and why it failed before if it did. */
    public record DueRow(String outboxId, String loadId, String actionType, String channel, int attempts, String dueFor,
                         String lastFailure) {
    }

    /** A scheduled timer past its time, and by how much. */
    public record LateTimer(String timerId, String loadId, String fireAt, String lateBy) {
    }

    /** A load with queued messages: how many, how long the oldest waits, when its head is handed out next. */
    public record QueuedLoad(String loadId, long messages, String oldestWaits, String next) {
    }

    /** The filters of the held list or a bulk repair, as given: held since, until (ISO-8601), head message's type. */
    public record HeldFilter(String since, String until, String messageType) {

        public String query() {
            return param("since", since) + param("until", until) + param("messageType", messageType);
        }

        public String sinceLocal() {
            return picker(since);
        }

        public String untilLocal() {
            return picker(until);
        }
    }

    /** What a dry run of a bulk repair says: holds matched, and the loads a repair would change. */
    public record RepairPreview(String action, long matched, List<Held> loads) {

        public boolean skip() {
            return "skip".equals(action);
        }
    }

    /** An ISO-8601 instant as a {@code datetime-local} picker's value, in UTC to the minute ("" for none). */
    public static String picker(String instant) {
        return instant == null ? "" : java.time.LocalDateTime.ofInstant(Instant.parse(instant), java.time.ZoneOffset.UTC)
                .truncatedTo(java.time.temporal.ChronoUnit.MINUTES).toString();
    }

    /** {@code name=value&}, encoded, for a page link's query; nothing for a filter not set. */
    static String param(String name, String value) {
        return value == null ? "" : name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8) + "&";
    }

    private static UnaryOperator<String> mask(boolean masked) {
        return masked ? PhoneMask::mask : UnaryOperator.identity();
    }

    static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    /**
     * A time on a list as on-call reads it: how long ago ({@code 12 min 5 s ago}, {@code 3 h 2 min ago},
     * {@code 2 d 4 h ago}) or how far ahead ({@code in 40 s}), the instant in full for its tooltip.
     */
    public static LoadStory.When ago(Instant at, Instant now) {
        if (at == null) {
            return null;
        }
        Duration since = Duration.between(at, now);
        return new LoadStory.When(since.isNegative() ? "in " + age(since.negated()) : age(since) + " ago", at.toString());
    }

    /** A span as the pages show it, to the second under a minute, in days and hours past a day. */
    static String age(Duration age) {
        if (age.toDays() > 0) {
            return age.toDays() + " d " + age.toHoursPart() + " h";
        }
        return age.toHours() > 0 ? age.toHours() + " h " + age.toMinutesPart() + " min"
                : age.toMinutes() > 0 ? age.toMinutes() + " min " + age.toSecondsPart() + " s" : age.toSeconds() + " s";
    }
}
