package dev.loadflow.worker.admin;

import dev.loadflow.service.problem.Problem;
import dev.loadflow.service.security.Audits;
import dev.loadflow.service.security.Roles;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.queue.HeldLoad;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.queue.LoadQueue;
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

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Loads held at a poison head message, for operators (viewers read, operators change): list
 * them, retry a head once its cause is fixed, or skip it with a reason. Works on the
 * PostgreSQL queue and on SQS FIFO.
 */
@Path("/admin/loads")
@Produces(MediaType.APPLICATION_JSON)
public class HeldLoadsResource {

    private final HeldLoads held;
    private final LoadQueue queue;
    private final HeldRepairs repairs;
    private final Audits audits;

    HeldLoadsResource(HeldLoads held, LoadQueue queue, HeldRepairs repairs, Audits audits) {
        this.held = held;
        this.queue = queue;
        this.repairs = repairs;
        this.audits = audits;
    }

    @GET
    @Path("/held")
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @RunOnVirtualThread
    public Response held(@QueryParam("limit") @DefaultValue("100") int limit) {
        if (limit < 1 || limit > 1000) {
            return Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "limit must be between 1 and 1000", "limit").response();
        }
        List<HeldLoad> loads = held.list(limit);
        Map<String, Integer> waiting = queue.waiting(loads.stream().map(HeldLoad::loadId).toList());
        return Response.ok(new Held(loads.stream().map(h -> HeldView.of(h, waiting.get(h.loadId()))).toList())).build();
    }

    @POST
    @Path("/{loadId}/retry")
    @RolesAllowed(Roles.OPERATOR)
    @RunOnVirtualThread
    public Response retry(@PathParam("loadId") String loadId) {
        AuditRecord audit = audits.of("load.retry", loadId, Map.of());
        return answer(repairs.retry(loadId, audit), audit);
    }

    @POST
    @Path("/{loadId}/skip")
    @Consumes(MediaType.WILDCARD)
    @RolesAllowed(Roles.OPERATOR)
    @RunOnVirtualThread
    public Response skip(@PathParam("loadId") String loadId, String body) {
        String reason = OperatorReason.from(body, "why the message is skipped (written in the load's log)");
        AuditRecord audit = audits.of("load.skip", loadId, Map.of("reason", reason));
        return answer(repairs.skip(loadId, reason, audit), audit);
    }

    private Response answer(HeldRepairs.Result result, AuditRecord audit) {
        return switch (result) {
            case HeldRepairs.Done done -> {
                audits.logged(audit, done.auditId(), done.held().state().wire() + " " + done.held().messageId());
                yield Response.ok(new Changed(done.held().loadId(), done.held().messageId(), done.held().messageType(),
                        done.held().state().wire(), done.auditId())).build();
            }
            case HeldRepairs.NotHeld notHeld -> Problem.of(Response.Status.NOT_FOUND, "Not Found",
                    "load " + notHeld.loadId() + " is not held", null).response();
            case HeldRepairs.BeingSkipped skipping -> Problem.of(Response.Status.CONFLICT, "Conflict",
                    "load " + skipping.held().loadId() + " is being skipped past message " + skipping.held().messageId()
                            + " already", null).response();
            case HeldRepairs.Moved moved -> Problem.of(Response.Status.CONFLICT, "Conflict", moved.detail(), null).response();
        };
    }

    /** {@code waiting}: messages queued behind the head; null where the queue cannot count per load (SQS). */
    @RegisterForReflection
    record HeldView(String loadId, String messageId, String messageType, String reason, Instant since, String state,
                    Integer waiting) {
        static HeldView of(HeldLoad h, Integer waiting) {
            return new HeldView(h.loadId(), h.messageId(), h.messageType(), h.reason(), h.since(), h.state().wire(),
                    waiting);
        }
    }

    @RegisterForReflection
    record Held(List<HeldView> held) {
    }

    @RegisterForReflection
    record Changed(String loadId, String messageId, String messageType, String state, long auditId) {
    }
}
