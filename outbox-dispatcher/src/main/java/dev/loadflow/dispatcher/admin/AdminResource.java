package dev.loadflow.dispatcher.admin;

import dev.loadflow.service.admin.OperatorRequests;
import dev.loadflow.service.admin.RowAnswers;
import dev.loadflow.model.action.ActionType;
import dev.loadflow.model.id.InboundIds;
import dev.loadflow.service.admin.ReplayAnswer;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.service.security.Audits;
import dev.loadflow.service.security.Roles;
import dev.loadflow.store.alert.OpsAlerts;
import dev.loadflow.store.audit.AdminAudit;
import dev.loadflow.store.audit.AuditQuery;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.outbox.DeadRowQuery;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.dispatcher.finish.Finisher;
import dev.loadflow.model.event.OutcomeStatus;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestResponse;

import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The operators' API for parked (dead) and ambiguous outbox rows and ops alerts. Outbox ids hold {@code /}:
 * send them URL-encoded ({@code 481207%2Fask%3Aeta_request%3Aping_0700%2F1%2Fsend_sms}).
 */
@Path("/admin")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "admin", description = "Parked outbox rows, ops alerts and the admin audit trail")
@SecurityScheme(securitySchemeName = "bearer", type = SecuritySchemeType.HTTP, scheme = "bearer")
@SecurityRequirement(name = "bearer")
public class AdminResource {

    private static final int MAX_PAGE_SIZE = 500;

    private final Outbox outbox;
    private final LoadQueue queue;
    private final OpsAlerts alerts;
    private final Clock clock;
    private final AdminAudit trail;
    private final Audits audits;

    private final StaleRows staleRows;
    private final int replayMax;

    AdminResource(Outbox outbox, OpsAlerts alerts, Clock clock, AdminAudit trail, Audits audits, EventStore events,
                  LoadQueue queue, @ConfigProperty(name = "loadflow.admin.replay-max", defaultValue = "500") int replayMax) {
        this.outbox = outbox;
        this.queue = queue;
        this.alerts = alerts;
        this.clock = clock;
        this.trail = trail;
        this.audits = audits;
        this.staleRows = new StaleRows(events);
        this.replayMax = replayMax;
    }

    @GET
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @Path("/outbox/dead")
    @RunOnVirtualThread
    @Operation(summary = "List parked rows, newest dead first; filters are optional")
    public RestResponse<AdminAnswers.DeadPage> dead(@QueryParam("loadId") String loadId, @QueryParam("actionType") String actionType,
                         @QueryParam("since") String since, @QueryParam("page") @DefaultValue("0") int page,
                         @QueryParam("size") @DefaultValue("50") int size) {
        checkPage(page, size);
        Instant from = since(since);
        return RestResponse.ok(new AdminAnswers.DeadPage(page, size, outbox.dead(
                new DeadRowQuery(loadId, actionType, from, page * size, size)).stream()
                .map(r -> AdminAnswers.RowView.of(r, null)).toList()));
    }

    @GET
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @Path("/outbox/ambiguous")
    @RunOnVirtualThread
    @Operation(summary = "List ambiguous rows (a send whose answer was lost, to a provider without idempotency), "
            + "the longest waiting first")
    public RestResponse<AdminAnswers.AmbiguousRows> ambiguous(@QueryParam("size") @DefaultValue("50") int size) {
        checkPage(0, size);
        return RestResponse.ok(new AdminAnswers.AmbiguousRows(outbox.ambiguous(size).stream()
                .map(r -> AdminAnswers.RowView.of(r, null)).toList()));
    }

    /** The longest reason an operator may give for a resolution. */
    static final int MAX_REASON = 500;

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("/outbox/{outboxId: .+}/resolve")
    @RunOnVirtualThread
    @Operation(summary = "Resolve an ambiguous row: as delivered (the provider has it: its delivered outcome is published "
            + "and the row dispatched) or resend (it has not: sent again with a fresh budget); audited")
    public RestResponse<RowAnswers.Resolved> resolve(@PathParam("outboxId") String outboxId, OperatorRequests.Resolve body) {
        if (body == null || body.as() == null || !Set.of("delivered", "resend").contains(body.as())) {
            throw invalid("as", "as is delivered (the provider has the message) or resend (it has not)");
        }
        if (body.reason() == null || body.reason().isBlank() || body.reason().length() > MAX_REASON) {
            throw invalid("reason", "reason is required: what was checked at the provider, 1 to " + MAX_REASON + " characters");
        }
        Optional<OutboxRow> row = outbox.find(outboxId);
        if (row.isEmpty()) {
            throw problem(Response.Status.NOT_FOUND, "no outbox row " + outboxId);
        }
        if (row.get().status() != OutboxStatus.AMBIGUOUS) {
            throw problem(Response.Status.CONFLICT, "outbox row " + outboxId + " is " + row.get().status().wire()
                    + ", not ambiguous");
        }
        AuditRecord audit = audits.of("outbox.resolve", outboxId, new TreeMap<>(Map.of("as", body.as(), "reason", body.reason())));
        Instant now = clock.instant();
        Optional<Long> auditId;
        if (body.as().equals("delivered")) {
            String receipt = "marked delivered by " + audit.principal() + ": " + body.reason();
            // the outcome first, as a dispatcher's own delivery does: the row's mark never goes without it
            queue.enqueue(Finisher.outcome(row.get(), OutcomeStatus.DELIVERED, receipt, null, now));
            auditId = outbox.resolve(outboxId, Outbox.Resolution.DELIVERED, receipt, now, audit);
        } else {
            auditId = outbox.resolve(outboxId, Outbox.Resolution.RESEND, null, now, audit);
        }
        if (auditId.isEmpty()) {
            throw problem(Response.Status.CONFLICT, "outbox row " + outboxId + " was resolved meanwhile");
        }
        audits.logged(audit, auditId.get(), "resolved as " + body.as());
        return RestResponse.ok(new RowAnswers.Resolved(outboxId, body.as(), auditId.get()));
    }

    @GET
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @Path("/outbox/{outboxId: .+}")
    @RunOnVirtualThread
    @Operation(summary = "Show one outbox row with its failed attempts")
    public RestResponse<AdminAnswers.RowView> show(@PathParam("outboxId") String outboxId) {
        OutboxRow row = outbox.find(outboxId).orElseThrow(() -> problem(Response.Status.NOT_FOUND, "no outbox row " + outboxId));
        return RestResponse.ok(AdminAnswers.RowView.of(row, outbox.failures(outboxId)));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("/outbox/{outboxId: .+}/replay")
    @RunOnVirtualThread
    @Operation(summary = "Requeue one parked row: fresh retry budget, same idempotency key")
    public RestResponse<AdminAnswers.Replayed> replay(@PathParam("outboxId") String outboxId) {
        AuditRecord audit = audits.of("outbox.replay", outboxId, Map.of());
        Optional<Long> auditId = outbox.replay(outboxId, clock.instant(), audit);
        if (auditId.isPresent()) {
            audits.logged(audit, auditId.get(), "replayed 1");
            return RestResponse.ok(new AdminAnswers.Replayed(outboxId, 1, auditId.get()));
        }
        throw outbox.find(outboxId).isPresent()
                ? problem(Response.Status.CONFLICT, "outbox row " + outboxId + " is not dead")
                : problem(Response.Status.NOT_FOUND, "no outbox row " + outboxId);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("/outbox/{outboxId: .+}/acknowledge")
    @RunOnVirtualThread
    @Operation(summary = "Mark a dead row handled without sending it (and its alerts): it stays listed, and retention "
            + "deletes it once loadflow.retention.dead has passed since; audited")
    public RestResponse<RowAnswers.Acknowledged> acknowledge(@PathParam("outboxId") String outboxId, OperatorRequests.Acknowledge body) {
        if (invalidReason(body)) {
            throw invalid("reason", "reason is required: what was done instead of a replay, 1 to " + MAX_REASON + " characters");
        }
        AuditRecord audit = audits.of("outbox.acknowledge", outboxId, Map.of("reason", body.reason()));
        Optional<Long> auditId = outbox.acknowledge(outboxId, clock.instant(), audit);
        if (auditId.isPresent()) {
            audits.logged(audit, auditId.get(), "acknowledged");
            return RestResponse.ok(new RowAnswers.Acknowledged(outboxId, true, auditId.get()));
        }
        throw outbox.find(outboxId)
                .map(r -> problem(Response.Status.CONFLICT, "outbox row " + outboxId + (r.status() == OutboxStatus.DEAD
                        ? " was acknowledged already" : " is " + r.status().wire() + ", not dead")))
                .orElseGet(() -> problem(Response.Status.NOT_FOUND, "no outbox row " + outboxId));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("/outbox/replay")
    @RunOnVirtualThread
    @Operation(summary = "Requeue parked rows that match the filters: at most limit, stale rows left dead unless force; "
            + "dryRun shows what would happen")
    public RestResponse<ReplayAnswer> replayMatching(@QueryParam("loadId") String loadId, @QueryParam("actionType") String actionType,
                                   @QueryParam("since") String since, @QueryParam("until") String until,
                                   @QueryParam("limit") Integer limit, @QueryParam("dryRun") @DefaultValue("false") boolean dryRun,
                                   @QueryParam("force") @DefaultValue("false") boolean force) {
        if (limit == null || limit < 1 || limit > replayMax) {
            throw invalid("limit", "limit is required: how many rows at most, 1 to " + replayMax
                    + " (loadflow.admin.replay-max)");
        }
        if (loadId != null && !InboundIds.isValidLoadId(loadId)) {
            throw invalid("loadId", "loadId must be 1 to 64 characters of [A-Za-z0-9_-], got '" + loadId + "'");
        }
        if (actionType != null && Arrays.stream(ActionType.values()).noneMatch(t -> t.wire().equals(actionType))) {
            throw invalid("actionType", "unknown actionType '" + actionType + "'; one of "
                    + Arrays.stream(ActionType.values()).map(ActionType::wire).toList());
        }
        Instant from = since(since);
        Instant to = instant("until", until);
        if (from != null && to != null && !to.isAfter(from)) {
            throw invalid("until", "until must be after since");
        }
        DeadRowQuery query = new DeadRowQuery(loadId, actionType, from, to, 0, limit);
        long matched = outbox.countDead(query);
        List<OutboxRow> candidates = outbox.dead(query);
        Set<String> stale = staleRows.of(candidates);
        List<String> chosen = candidates.stream().map(OutboxRow::outboxId).filter(id -> force || !stale.contains(id)).toList();
        int leftStale = force ? 0 : stale.size();
        if (dryRun) {
            return RestResponse.ok(new ReplayAnswer.Preview(matched, chosen.size(), leftStale,
                    chosen.stream().limit(10).toList()));
        }
        Map<String, Object> params = new TreeMap<>();
        Optional.ofNullable(loadId).ifPresent(v -> params.put("loadId", v));
        Optional.ofNullable(actionType).ifPresent(v -> params.put("actionType", v));
        Optional.ofNullable(since).ifPresent(v -> params.put("since", v));
        Optional.ofNullable(until).ifPresent(v -> params.put("until", v));
        params.put("limit", limit);
        params.put("force", force);
        AuditRecord audit = audits.of("outbox.replay-matching", "dead rows " + params, params);
        Outbox.Replayed replayed = outbox.replay(chosen, leftStale, clock.instant(), audit);
        audits.logged(audit, replayed.auditId(), "replayed " + replayed.replayed() + ", stale left dead " + leftStale);
        return RestResponse.ok(new ReplayAnswer.Replayed(replayed.replayed(), leftStale, replayed.auditId()));
    }

    @GET
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @Path("/alerts")
    @RunOnVirtualThread
    @Operation(summary = "List ops alerts, newest first")
    public RestResponse<AdminAnswers.AlertPage> alerts(@QueryParam("since") String since, @QueryParam("page") @DefaultValue("0") int page,
                           @QueryParam("size") @DefaultValue("50") int size) {
        checkPage(page, size);
        Instant from = since(since);
        return RestResponse.ok(new AdminAnswers.AlertPage(page, size,
                alerts.list(from, page * size, size).stream().map(AdminAnswers.AlertView::of).toList()));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("/alerts/{id}/acknowledge")
    @RunOnVirtualThread
    @Operation(summary = "Mark an alert handled: retention deletes it once loadflow.retention.dead has passed since; audited")
    public RestResponse<RowAnswers.Acknowledged> acknowledgeAlert(@PathParam("id") long id, OperatorRequests.Acknowledge body) {
        if (invalidReason(body)) {
            throw invalid("reason", "reason is required: what was done about the alert, 1 to " + MAX_REASON + " characters");
        }
        AuditRecord audit = audits.of("alert.acknowledge", Long.toString(id), Map.of("reason", body.reason()));
        Optional<Long> auditId = alerts.acknowledge(id, clock.instant(), audit);
        if (auditId.isEmpty()) {
            throw problem(Response.Status.CONFLICT, "no alert " + id + " waiting for an acknowledgement");
        }
        audits.logged(audit, auditId.get(), "acknowledged");
        return RestResponse.ok(new RowAnswers.Acknowledged(Long.toString(id), true, auditId.get()));
    }

    private static boolean invalidReason(OperatorRequests.Acknowledge body) {
        return body == null || body.reason() == null || body.reason().isBlank() || body.reason().length() > MAX_REASON;
    }

    @GET
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @Path("/audit")
    @RunOnVirtualThread
    @Operation(summary = "List admin changes of every service, newest first; filters are optional")
    public RestResponse<AdminAnswers.AuditPage> audit(@QueryParam("since") String since, @QueryParam("principal") String principal,
                          @QueryParam("page") @DefaultValue("0") int page, @QueryParam("size") @DefaultValue("50") int size) {
        checkPage(page, size);
        return RestResponse.ok(new AdminAnswers.AuditPage(page, size, trail.list(
                new AuditQuery(since(since), principal, page * size, size)).stream().map(AdminAnswers.AuditView::of).toList()));
    }

    /** The optional {@code since} filter; a 400 problem when it is not an ISO-8601 instant. */
    private static Instant since(String since) {
        return instant("since", since);
    }

    private static Instant instant(String name, String value) {
        try {
            return value == null ? null : Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw invalid(name, name + " must be an ISO-8601 instant, got '" + value + "'");
        }
    }

    /** The most pages a list goes to: further than anyone pages, and far from where {@code page * size} overflows. */
    static final int MAX_PAGE = 100_000;

    /** A 400 problem unless {@code page} and {@code size} name a page that may be read. */
    private static void checkPage(int page, int size) {
        if (page < 0 || page > MAX_PAGE || size < 1 || size > MAX_PAGE_SIZE) {
            throw problem(Response.Status.BAD_REQUEST,
                    "page must be between 0 and " + MAX_PAGE + " and size between 1 and " + MAX_PAGE_SIZE);
        }
    }

    private static WebApplicationException invalid(String field, String detail) {
        return Problem.of(Response.Status.BAD_REQUEST, "Bad Request", detail, field).exception();
    }

    private static WebApplicationException problem(Response.Status status, String detail) {
        return Problem.of(status, detail).exception();
    }
}
