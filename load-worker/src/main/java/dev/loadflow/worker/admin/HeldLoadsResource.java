package dev.loadflow.worker.admin;

import dev.loadflow.service.admin.HeldRepairAnswer;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.service.security.Audits;
import dev.loadflow.service.security.Roles;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.queue.HeldLoad;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.queue.QueueView;
import dev.loadflow.worker.hold.HeldRepairs;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.resteasy.reactive.RestResponse;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Loads held at a poison head message, for operators (viewers read, operators change): list
 * them, retry a head once its cause is fixed, or skip it with a reason. Works on the
 * PostgreSQL queue and on SQS FIFO.
 */
@Path("/admin/loads")
@Produces(MediaType.APPLICATION_JSON)
public class HeldLoadsResource {

    private final HeldLoads held;
    private final QueueView queue;
    private final HeldRepairs repairs;
    private final Audits audits;
    private final int repairMax;

    HeldLoadsResource(HeldLoads held, QueueView queue, HeldRepairs repairs, Audits audits,
                      @ConfigProperty(name = "loadflow.admin.held-repair-max", defaultValue = "200") int repairMax) {
        this.held = held;
        this.queue = queue;
        this.repairs = repairs;
        this.audits = audits;
        this.repairMax = repairMax;
    }

    @GET
    @Path("/held")
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @RunOnVirtualThread
    public RestResponse<Held> held(@QueryParam("since") String since, @QueryParam("until") String until,
                         @QueryParam("messageType") String messageType,
                         @QueryParam("limit") @DefaultValue("100") int limit) {
        if (limit < 1 || limit > 1000) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "limit must be between 1 and 1000", "limit").exception();
        }
        List<HeldLoad> loads = held.list(filter(since, until, messageType), limit);
        Map<String, Integer> waiting = queue.waiting(loads.stream().map(HeldLoad::loadId).toList());
        return RestResponse.ok(new Held(loads.stream().map(h -> view(h, waiting.get(h.loadId()))).toList()));
    }

    @POST
    @Path("/{loadId}/retry")
    @RolesAllowed(Roles.OPERATOR)
    @RunOnVirtualThread
    public RestResponse<HeldRepairAnswer.Changed> retry(@PathParam("loadId") String loadId) {
        AuditRecord audit = audits.of("load.retry", loadId, Map.of());
        return answer(repairs.retry(loadId, audit), audit);
    }

    @POST
    @Path("/{loadId}/skip")
    @Consumes(MediaType.WILDCARD)
    @RolesAllowed(Roles.OPERATOR)
    @RunOnVirtualThread
    public RestResponse<HeldRepairAnswer.Changed> skip(@PathParam("loadId") String loadId, String body) {
        String reason = OperatorReason.from(body, "why the message is skipped (written in the load's log)");
        AuditRecord audit = audits.of("load.skip", loadId, Map.of("reason", reason));
        return answer(repairs.skip(loadId, reason, audit), audit);
    }

    /**
     * Retries or skips the held heads of every load {@code since}/{@code until}/{@code messageType}
     * match, at most {@code limit}, longest held first: each load as one {@code retry} or
     * {@code skip} would, each with its own audit row naming the filters. {@code dryRun} lists
     * the loads and changes nothing.
     */
    @POST
    @Path("/held/repair")
    @Consumes(MediaType.WILDCARD)
    @RolesAllowed(Roles.OPERATOR)
    @RunOnVirtualThread
    public RestResponse<HeldRepairAnswer> repairMatching(@QueryParam("since") String since, @QueryParam("until") String until,
                                   @QueryParam("messageType") String messageType, @QueryParam("limit") Integer limit,
                                   @QueryParam("dryRun") @DefaultValue("false") boolean dryRun, String body) {
        if (limit == null || limit < 1 || limit > repairMax) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "limit is required: how many loads at most, 1 to "
                    + repairMax + " (loadflow.admin.held-repair-max)", "limit").exception();
        }
        BulkRepair repair = BulkRepair.from(body);
        HeldLoads.Filter filter = filter(since, until, messageType);
        List<HeldLoad> chosen = held.list(filter, limit).stream()
                .filter(h -> h.state() != HeldLoad.State.SKIPPED).toList();
        if (dryRun) {
            Map<String, Integer> waiting = queue.waiting(chosen.stream().map(HeldLoad::loadId).toList());
            return RestResponse.ok(new HeldRepairAnswer.Preview(repair.action(), held.count(filter),
                    chosen.stream().map(h -> view(h, waiting.get(h.loadId()))).toList()));
        }
        Map<String, Object> params = new TreeMap<>();
        Optional.ofNullable(since).ifPresent(v -> params.put("since", v));
        Optional.ofNullable(until).ifPresent(v -> params.put("until", v));
        Optional.ofNullable(messageType).ifPresent(v -> params.put("messageType", v));
        params.put("limit", limit);
        Optional.ofNullable(repair.reason()).ifPresent(v -> params.put("reason", v));
        List<HeldRepairAnswer.Changed> done = new ArrayList<>();
        List<HeldRepairAnswer.Refused> refused = new ArrayList<>();
        for (HeldLoad load : chosen) {
            AuditRecord audit = audits.of("load." + repair.action(), load.loadId(), Map.of("matching", params));
            HeldRepairs.Result result = "skip".equals(repair.action())
                    ? repairs.skip(load.loadId(), repair.reason(), audit)
                    : repairs.retry(load.loadId(), audit);
            if (result instanceof HeldRepairs.Done changed) {
                audits.logged(audit, changed.auditId(), changed.held().state().wire() + " " + changed.held().messageId());
                done.add(changed(changed));
            } else {
                refused.add(new HeldRepairAnswer.Refused(load.loadId(), refusal(result)));
            }
        }
        return RestResponse.ok(new HeldRepairAnswer.Repaired(repair.action(), done, refused));
    }

    private static HeldRepairAnswer.Held view(HeldLoad h, Integer waiting) {
        return new HeldRepairAnswer.Held(h.loadId(), h.messageId(), h.messageType(), h.reason(), h.since(), h.state().wire(),
                waiting);
    }

    private static HeldRepairAnswer.Changed changed(HeldRepairs.Done done) {
        return new HeldRepairAnswer.Changed(done.held().loadId(), done.held().messageId(), done.held().messageType(),
                done.held().state().wire(), done.auditId());
    }

    private static HeldLoads.Filter filter(String since, String until, String messageType) {
        Instant from = instant("since", since);
        Instant to = instant("until", until);
        if (from != null && to != null && !to.isAfter(from)) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request",
                    "until must be after since", "until").exception();
        }
        if (messageType != null && (messageType.isBlank() || messageType.length() > 64)) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request",
                    "messageType is an event type, e.g. InboundSms, or unreadable", "messageType").exception();
        }
        return new HeldLoads.Filter(from, to, messageType);
    }

    private static Instant instant(String name, String value) {
        try {
            return value == null || value.isBlank() ? null : Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request",
                    name + " must be an ISO-8601 instant, got '" + value + "'", name).exception();
        }
    }

    private static String refusal(HeldRepairs.Result result) {
        return switch (result) {
            case HeldRepairs.NotHeld notHeld -> "load " + notHeld.loadId() + " is not held";
            case HeldRepairs.BeingSkipped skipping -> "load " + skipping.held().loadId() + " is being skipped past message "
                    + skipping.held().messageId() + " already";
            case HeldRepairs.Moved moved -> moved.detail();
            case HeldRepairs.Done done -> throw new IllegalArgumentException("not a refusal: " + done);
        };
    }

    private RestResponse<HeldRepairAnswer.Changed> answer(HeldRepairs.Result result, AuditRecord audit) {
        return switch (result) {
            case HeldRepairs.Done done -> {
                audits.logged(audit, done.auditId(), done.held().state().wire() + " " + done.held().messageId());
                yield RestResponse.ok(changed(done));
            }
            case HeldRepairs.NotHeld notHeld -> throw Problem.of(Response.Status.NOT_FOUND, "Not Found", refusal(notHeld), null)
                    .exception();
            case HeldRepairs.BeingSkipped skipping -> throw Problem.of(Response.Status.CONFLICT, "Conflict", refusal(skipping),
                    null).exception();
            case HeldRepairs.Moved moved -> throw Problem.of(Response.Status.CONFLICT, "Conflict", refusal(moved), null).exception();
        };
    }

    @RegisterForReflection
    record Held(List<HeldRepairAnswer.Held> held) {
    }
}
