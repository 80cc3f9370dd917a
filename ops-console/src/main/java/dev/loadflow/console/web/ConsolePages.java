package dev.loadflow.console.web;

import dev.loadflow.console.ConsoleConfig;
import dev.loadflow.console.story.LoadStories;
import dev.loadflow.console.story.LoadStory;
import dev.loadflow.model.action.ActionType;
import dev.loadflow.model.id.InboundIds;
import dev.loadflow.service.security.Roles;
import dev.loadflow.store.alert.OpsAlerts;
import dev.loadflow.store.audit.AdminAudit;
import dev.loadflow.store.audit.AuditQuery;
import dev.loadflow.store.outbox.DeadRowQuery;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.overview.PgLoadDirectory;
import dev.loadflow.store.overview.PgOverview;
import dev.loadflow.store.overview.PgWaiting;
import dev.loadflow.service.security.PhoneMask;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.sop.SopVersions;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.time.format.DateTimeParseException;
import java.util.Arrays;

/**
 * The console's pages: a load's story, held loads, dead rows, ops alerts and the audit trail.
 * Everything here reads PostgreSQL (read-only); every change is in {@link ConsoleActions}.
 */
@Path("/")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
@RunOnVirtualThread
public class ConsolePages {

    /** The most held loads the page lists (a held load is an incident: there are few). */
    private static final int HELD_MAX = 500;
    /** The overview's charts: the last six hours in quarters of an hour. */
    private static final Duration CHART_SPAN = Duration.ofHours(6);
    private static final Duration CHART_INTERVAL = Duration.ofMinutes(15);
    /** The overview reads the database again this often (it refreshes itself). */
    private static final int OVERVIEW_REFRESH_SECONDS = 30;

    private final LoadStories stories;
    private final HeldLoads held;
    private final Outbox outbox;
    private final OpsAlerts alerts;
    private final AdminAudit audit;
    private final Caller caller;
    private final ConsoleConfig config;
    private final PgOverview overview;
    private final PgLoadDirectory directory;
    private final PgWaiting waiting;
    private final SopVersions sops;
    private final Clock clock;
    private final int replayMax;
    private final int heldRepairMax;

    ConsolePages(LoadStories stories, HeldLoads held, Outbox outbox, OpsAlerts alerts, AdminAudit audit, Caller caller,
                 ConsoleConfig config, PgOverview overview, PgLoadDirectory directory, PgWaiting waiting, SopVersions sops,
                 Clock clock,
                 @org.eclipse.microprofile.config.inject.ConfigProperty(name = "loadflow.admin.replay-max", defaultValue = "500")
                 int replayMax,
                 @org.eclipse.microprofile.config.inject.ConfigProperty(name = "loadflow.admin.held-repair-max", defaultValue = "200")
                 int heldRepairMax) {
        this.stories = stories;
        this.held = held;
        this.outbox = outbox;
        this.alerts = alerts;
        this.audit = audit;
        this.caller = caller;
        this.config = config;
        this.overview = overview;
        this.directory = directory;
        this.waiting = waiting;
        this.sops = sops;
        this.clock = clock;
        this.replayMax = replayMax;
        this.heldRepairMax = heldRepairMax;
    }

    /** The overview: what needs an operator now, each count linked to its list, and the last hours in charts. */
    @GET
    public Object home() {
        Instant now = clock.instant();
        PgOverview.Counts counts = overview.counts(now);
        int buckets = (int) (CHART_SPAN.toMinutes() / CHART_INTERVAL.toMinutes());
        PgOverview.Activity activity = overview.activity(now, CHART_INTERVAL, buckets);
        String lastDay = UriBuilder.fromPath("/dead").queryParam("since", now.minus(Duration.ofDays(1)).truncatedTo(ChronoUnit.SECONDS))
                .build().toString();
        List<Views.Count> shown = List.of(
                new Views.Count("held", "Held loads", Long.toString(counts.heldLoads()), "/held", counts.heldLoads() > 0,
                        "stopped at a message that cannot be processed"),
                new Views.Count("dead", "Dead rows, last 24 h", Long.toString(counts.deadLastDay()), lastDay, counts.deadLastDay() > 0,
                        "actions never delivered"),
                new Views.Count("ambiguous", "Ambiguous sends", Long.toString(counts.ambiguous()), "/ambiguous", counts.ambiguous() > 0,
                        "may or may not have reached a provider"),
                new Views.Count("alerts", "Open ops alerts", Long.toString(counts.openAlerts()), "/alerts", counts.openAlerts() > 0,
                        "not acknowledged"),
                new Views.Count("backlog", "Outbox due", Long.toString(counts.outboxDue()), "/waiting#backlog",
                        counts.oldestDue().compareTo(Duration.ofMinutes(5)) > 0,
                        counts.outboxDue() == 0 ? "nothing waiting" : "oldest due " + Views.age(counts.oldestDue()) + " ago"),
                new Views.Count("queue", "Queue depth", Long.toString(counts.queued()), "/waiting#queue", false,
                        "messages waiting in the load queue (PostgreSQL)"),
                new Views.Count("timers", "Timers late", Long.toString(counts.timersLate()), "/waiting#timers", counts.timersLate() > 0,
                        "scheduled, more than " + PgOverview.TIMER_LATE.toSeconds() + " s past their time"));
        Map<String, double[]> sent = new java.util.LinkedHashMap<>();
        activity.sentByChannel().forEach((channel, values) -> sent.put(channel, Charts.toDoubles(values)));
        Map<String, double[]> lateness = new java.util.LinkedHashMap<>();
        lateness.put("latest", activity.timerLateness());
        List<Charts.Chart> charts = List.of(
                Charts.lines("inbound", "Inbound events per 15 minutes", "events", CHART_SPAN, CHART_INTERVAL,
                        Charts.series("from sources", activity.inbound())),
                Charts.lines("sent", "Actions delivered per 15 minutes, by channel", "rows", CHART_SPAN, CHART_INTERVAL, sent),
                Charts.lines("dead", "Outbox rows that died per 15 minutes", "rows", CHART_SPAN, CHART_INTERVAL,
                        Charts.series("dead", activity.dead())),
                Charts.lines("lateness", "Timer lateness: the latest a timer fired after its time", "s", CHART_SPAN, CHART_INTERVAL,
                        lateness));
        return Pages.home(caller, new Views.Overview(shown, charts, OVERVIEW_REFRESH_SECONDS, now.truncatedTo(ChronoUnit.SECONDS).toString()));
    }

    /** What waits behind the overview's backlog, late-timer and queue counts, oldest first. */
    @GET
    @Path("/waiting")
    public Object waiting() {
        Instant now = clock.instant();
        int size = config.pageSize();
        boolean masked = caller.masked();
        return Pages.waiting(caller, now.truncatedTo(ChronoUnit.SECONDS).toString(),
                waiting.due(now, size).stream().map(r -> new Views.DueRow(r.outboxId(), r.loadId(), r.actionType(), r.channel(),
                        r.attempts(), Views.age(Duration.between(r.dueAt(), now)), masked ? PhoneMask.mask(r.lastFailure()) : r.lastFailure()))
                        .toList(),
                waiting.late(now, PgOverview.TIMER_LATE, size).stream().map(t -> new Views.LateTimer(t.timerId(), t.loadId(),
                        Views.text(t.fireAt()), Views.age(Duration.between(t.fireAt(), now)))).toList(),
                waiting.queued(size).stream().map(q -> new Views.QueuedLoad(q.loadId(), q.messages(),
                        q.oldestEnqueuedAt() == null ? "" : Views.age(Duration.between(q.oldestEnqueuedAt(), now)),
                        q.visibleAt().isAfter(now) ? "in " + Views.age(Duration.between(now, q.visibleAt())) : "now")).toList(),
                size);
    }

    /**
     * The search box, {@code /loads?loadId=481207}, goes to that load's page; without a load id,
     * the loads the filters find (by default those active in the last 24 hours), a page at a time.
     * Only an operator may find loads by the driver's number.
     */
    @GET
    @Path("/loads")
    public Object loads(@QueryParam("loadId") String loadId, @QueryParam("client") String client,
                        @QueryParam("driver") String driver, @QueryParam("held") String held, @QueryParam("dead") String dead,
                        @QueryParam("stage") String stage, @QueryParam("openAsk") String openAsk, @QueryParam("active") String active,
                        @QueryParam("page") @DefaultValue("0") int page) {
        if (loadId != null) {
            String id = loadId.trim();
            if (!InboundIds.isValidLoadId(id)) {
                throw ConsoleProblem.badRequest("Not a load id", "A load id is 1 to 64 characters of A-Z, a-z, 0-9, _ and -; got '"
                        + abbreviate(id) + "'.");
            }
            return Response.seeOther(UriBuilder.fromPath("/loads/{loadId}").build(id)).build();
        }
        checkPage(page);
        String driverPhone = blankToNull(driver);
        if (driverPhone != null && caller.masked()) {
            throw new io.quarkus.security.ForbiddenException("finding loads by the driver's number needs the operator role");
        }
        String atStage = blankToNull(stage);
        if (atStage != null && atStage.length() > 64) {
            throw ConsoleProblem.badRequest("Not a stage", "A stage is 1 to 64 characters, e.g. in_transit; got '"
                    + abbreviate(atStage) + "'.");
        }
        String hours = active == null ? (blankToNull(client) == null && driverPhone == null && atStage == null && held == null
                && dead == null && openAsk == null ? "24" : "") : active.trim();
        if (!hours.isEmpty() && !hours.matches("\\d{1,4}")) {
            throw ConsoleProblem.badRequest("Not a number of hours", "'active' is a whole number of hours, or empty for any time; got '"
                    + abbreviate(hours) + "'.");
        }
        Views.LoadFilter filter = new Views.LoadFilter(blankToNull(client), driverPhone, atStage, held != null, dead != null,
                openAsk != null, hours);
        int size = config.pageSize();
        Instant since = hours.isEmpty() ? null : clock.instant().minus(Duration.ofHours(Long.parseLong(hours)));
        PgLoadDirectory.Query query = new PgLoadDirectory.Query(filter.client(), filter.driver(), filter.stage(), filter.held(),
                filter.dead(), filter.openAsk(), since, page * size, size + 1);
        List<PgLoadDirectory.Found> found = query.filtered() ? directory.find(query) : List.of();
        return Pages.loads(caller, filter, found.stream().limit(size).map(f -> Views.FoundLoad.of(f, caller.masked(), clock.instant())).toList(),
                new Views.Paging(page, found.size() > size, "/loads", filter.query()));
    }

    @GET
    @Path("/loads/{loadId}")
    public Object load(@PathParam("loadId") String loadId, @QueryParam("done") String done) {
        if (!InboundIds.isValidLoadId(loadId)) {
            throw ConsoleProblem.badRequest("Not a load id", "A load id is 1 to 64 characters of A-Z, a-z, 0-9, _ and -; got '"
                    + abbreviate(loadId) + "'.");
        }
        LoadStory story = stories.of(loadId, caller.masked());
        if (!story.found()) {
            throw ConsoleProblem.notFound("No such load", "Nothing is known of load " + loadId
                    + ": no log entry, outbox row, timer or hold.");
        }
        return Pages.load(caller, story, Notices.of(done, loadId));
    }

    /** Every client with a stored SOP: its version and its last change. */
    @GET
    @Path("/sops")
    public Object sops() {
        Instant now = clock.instant();
        return Pages.sops(caller, sops.currents().stream().map(v -> SopViews.Client.of(v, now)).toList());
    }

    /** The list's "open a client" box. */
    @GET
    @Path("/sops/open")
    public Response openSop(@QueryParam("clientId") String clientId) {
        return Response.seeOther(UriBuilder.fromPath("/sops/{clientId}").build(checkClientId(clientId == null ? "" : clientId.strip())))
                .build();
    }

    /** A client's SOP: the current version, the history with each version's diff, and the edit form. */
    @GET
    @Path("/sops/{clientId}")
    public Object sop(@PathParam("clientId") String clientId, @QueryParam("done") String done,
                      @QueryParam("version") @DefaultValue("0") int version) {
        checkClientId(clientId);
        List<dev.loadflow.store.sop.SopVersion> history = sops.history(clientId);
        String draft = history.isEmpty() ? SopViews.EXAMPLE : SopViews.json(history.getFirst().rules());
        return Pages.sop(caller, clientId, SopViews.versions(history, clock.instant()), draft, null, null, null,
                "saved".equals(done) ? "Saved as version " + version + ": new asks follow it; open asks finish under their own." : null);
    }

    /** A client's SOP page around an operator's draft (kept as typed) and its preview. */
    Object sopWithDraft(String clientId, String draft, String reason, String loadId, SopViews.Preview preview) {
        return Pages.sop(caller, clientId, SopViews.versions(sops.history(clientId), clock.instant()), draft, reason, loadId,
                preview, null);
    }

    static String checkClientId(String clientId) {
        if (!InboundIds.isValidLoadId(clientId)) {
            throw ConsoleProblem.badRequest("Not a client id", "A client id is 1 to 64 characters of A-Z, a-z, 0-9, _ and -; got '"
                    + abbreviate(clientId) + "'.");
        }
        return clientId;
    }

    @GET
    @Path("/held")
    public Object held(@QueryParam("since") String since, @QueryParam("until") String until,
                       @QueryParam("messageType") String messageType, @QueryParam("done") String done,
                       @QueryParam("load") String load, @QueryParam("count") @DefaultValue("0") int count,
                       @QueryParam("refused") @DefaultValue("0") int refused) {
        Views.HeldFilter filter = heldFilter(since, until, messageType);
        HeldLoads.Filter matching = new HeldLoads.Filter(instant("since", filter.since()), instant("until", filter.until()),
                filter.messageType());
        String notice = done != null && done.startsWith("bulk-") ? Notices.bulk(done, count, refused)
                : InboundIds.isValidLoadId(load) ? Notices.of(done, load) : null;
        return Pages.held(caller, filter, held.list(matching, HELD_MAX).stream().map(h -> Views.Held.of(h, caller.masked(), clock.instant())).toList(),
                notice, heldRepairMax);
    }

    @GET
    @Path("/dead")
    public Object dead(@QueryParam("loadId") String loadId, @QueryParam("actionType") String actionType,
                       @QueryParam("since") String since, @QueryParam("until") String until,
                       @QueryParam("page") @DefaultValue("0") int page, @QueryParam("done") String done,
                       @QueryParam("count") @DefaultValue("0") int count) {
        Views.DeadFilter filter = deadFilter(loadId, actionType, since, until);
        checkPage(page);
        int size = config.pageSize();
        var rows = outbox.dead(new DeadRowQuery(filter.loadId(), filter.actionType(), instant("since", filter.since()),
                instant("until", filter.until()), page * size, size + 1));
        return Pages.dead(caller, filter, rows.stream().limit(size).map(r -> Views.Dead.of(r, caller.masked(), clock.instant())).toList(),
                new Views.Paging(page, rows.size() > size, "/dead", filter.query()),
                switch (done == null ? "" : done) {
                    case "replayed" -> "Replayed " + count + " dead row(s).";
                    case "acknowledged" -> "Acknowledged: the row stays listed, and retention deletes it a period from now.";
                    default -> null;
                }, replayMax);
    }

    /** Sends that may or may not have reached a provider without idempotency: an operator looks, then resolves each. */
    @GET
    @Path("/ambiguous")
    public Object ambiguous(@QueryParam("done") String done) {
        return Pages.ambiguous(caller, outbox.ambiguous(HELD_MAX).stream().map(r -> Views.Ambiguous.of(r, caller.masked(), clock.instant())).toList(),
                switch (done == null ? "" : done) {
                    case "delivered" -> "Marked delivered: its delivered outcome went to the load.";
                    case "resend" -> "Sent again: the dispatcher sends it now, with a fresh retry budget.";
                    default -> null;
                });
    }

    @GET
    @Path("/alerts")
    public Object alerts(@QueryParam("since") String since, @QueryParam("page") @DefaultValue("0") int page) {
        checkPage(page);
        int size = config.pageSize();
        var list = alerts.list(instant("since", blankToNull(since)), page * size, size + 1);
        return Pages.alerts(caller, list.stream().limit(size).map(a -> Views.Alert.of(a, caller.masked(), clock.instant())).toList(),
                new Views.Paging(page, list.size() > size, "/alerts", Views.param("since", blankToNull(since))));
    }

    @GET
    @Path("/audit")
    public Object audit(@QueryParam("principal") String principal, @QueryParam("since") String since,
                        @QueryParam("page") @DefaultValue("0") int page) {
        checkPage(page);
        int size = config.pageSize();
        String who = blankToNull(principal);
        String from = iso(instant("since", blankToNull(since)));
        var list = audit.list(new AuditQuery(instant("since", from), who, page * size, size + 1));
        String query = Views.param("since", from) + Views.param("principal", who);
        return Pages.audit(caller, who, Views.picker(from), list.stream().limit(size).map(e -> Views.Audit.of(e, caller.masked(), clock.instant())).toList(),
                new Views.Paging(page, list.size() > size, "/audit", query));
    }

    /** The held-list filters, checked as the load-worker's admin API checks them (a 400 page when one is wrong). */
    static Views.HeldFilter heldFilter(String since, String until, String messageType) {
        Instant from = instant("since", blankToNull(since));
        Instant to = instant("until", blankToNull(until));
        if (from != null && to != null && !to.isAfter(from)) {
            throw ConsoleProblem.badRequest("No such time span", "until must be after since.");
        }
        String type = blankToNull(messageType);
        if (type != null && type.length() > 64) {
            throw ConsoleProblem.badRequest("Not a message type", "A message type is an event type such as InboundSms, or "
                    + "unreadable; got '" + abbreviate(type) + "'.");
        }
        return new Views.HeldFilter(iso(from), iso(to), type);
    }

    /** The dead-row filters, checked as the dispatcher's admin API checks them (a 400 page when one is wrong). */
    static Views.DeadFilter deadFilter(String loadId, String actionType, String since, String until) {
        Views.DeadFilter filter = new Views.DeadFilter(blankToNull(loadId), blankToNull(actionType), blankToNull(since),
                blankToNull(until));
        if (filter.loadId() != null && !InboundIds.isValidLoadId(filter.loadId())) {
            throw ConsoleProblem.badRequest("Not a load id", "A load id is 1 to 64 characters of A-Z, a-z, 0-9, _ and -; got '"
                    + abbreviate(filter.loadId()) + "'.");
        }
        if (filter.actionType() != null && Arrays.stream(ActionType.values()).noneMatch(t -> t.wire().equals(filter.actionType()))) {
            throw ConsoleProblem.badRequest("Unknown action type", "'" + abbreviate(filter.actionType()) + "' is none of "
                    + Arrays.stream(ActionType.values()).map(ActionType::wire).toList() + ".");
        }
        // a date picker's time (no zone) is UTC; the dispatcher's replay gets the same instants as ISO-8601
        return new Views.DeadFilter(filter.loadId(), filter.actionType(), iso(instant("since", filter.since())),
                iso(instant("until", filter.until())));
    }

    private static String iso(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    static Instant instant(String name, String value) {
        if (value == null) {
            return null;
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException notAnInstant) {
            try {
                // a date picker's value (datetime-local: no zone), read as UTC as the pages label it
                return java.time.LocalDateTime.parse(value).toInstant(java.time.ZoneOffset.UTC);
            } catch (DateTimeParseException e) {
                throw ConsoleProblem.badRequest("Not a time", name + " is a UTC time such as 2026-11-30T07:00 or an ISO-8601 "
                        + "instant such as 2026-11-30T07:00:00Z; got '" + abbreviate(value) + "'.");
            }
        }
    }

    /** The most pages a list goes to: further than anyone pages, and far from where {@code page * size} overflows. */
    static final int MAX_PAGE = 100_000;

    private static void checkPage(int page) {
        if (page < 0 || page > MAX_PAGE) {
            throw ConsoleProblem.badRequest("Not a page", "page counts from 0 to " + MAX_PAGE + "; got " + page + ".");
        }
    }

    static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }

    /** Echoes at most 80 characters of what a caller sent. */
    static String abbreviate(String value) {
        return value.length() <= 80 ? value : value.substring(0, 80) + "…";
    }

    /** What the page says after a change went through (the change itself answered in {@link ConsoleActions}). */
    static final class Notices {

        private Notices() {
        }

        static String of(String done, String loadId) {
            if (done == null) {
                return null;
            }
            return switch (done) {
                case "retry" -> "Retry asked: the worker delivers the head message of load " + loadId + " again now.";
                case "skipped" -> "Skipped the head message of load " + loadId + ": its next messages now run.";
                default -> null;
            };
        }

        /** After a bulk repair: how many loads it changed, and how many it left (released or changed meanwhile). */
        static String bulk(String done, int count, int refused) {
            String left = refused == 0 ? "" : " " + refused + " load(s) were left as they were: released or changed meanwhile.";
            return switch (done) {
                case "bulk-retry" -> "Retry asked for " + count + " held load(s): the worker delivers their head messages again now."
                        + left;
                case "bulk-skip" -> "Skipped the head messages of " + count + " load(s): their next messages now run." + left;
                default -> null;
            };
        }
    }
}
