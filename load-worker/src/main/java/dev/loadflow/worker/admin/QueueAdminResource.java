package dev.loadflow.worker.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.service.security.Audits;
import dev.loadflow.service.security.Roles;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.queue.DeadLetters;
import dev.loadflow.store.queue.ParkedMessage;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestResponse;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Poison messages of the load queue, for operators (viewers read, operators change): list them,
 * re-drive one once its cause is fixed, or acknowledge one handled another way (retention
 * deletes only acknowledged messages). Works on the PostgreSQL queue and on SQS FIFO.
 */
@Path("/admin/queue/dead")
@Produces(MediaType.APPLICATION_JSON)
public class QueueAdminResource {

    private final DeadLetters deadLetters;
    private final Audits audits;

    QueueAdminResource(DeadLetters deadLetters, Audits audits) {
        this.deadLetters = deadLetters;
        this.audits = audits;
    }

    @GET
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @RunOnVirtualThread
    public RestResponse<Parked> parked(@QueryParam("limit") @DefaultValue("50") int limit) {
        if (limit < 1 || limit > 500) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "limit must be between 1 and 500", "limit").exception();
        }
        return RestResponse.ok(new Parked(deadLetters.parked(limit).stream().map(ParkedView::of).toList()));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("/redrive")
    @RunOnVirtualThread
    public RestResponse<Redriven> redrive(@QueryParam("loadId") String loadId, @QueryParam("messageId") String messageId) {
        if (loadId == null || messageId == null) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "loadId and messageId are required", null).exception();
        }
        AuditRecord audit = audits.of("queue.redrive", loadId + "/" + messageId, Map.of());
        Optional<Long> auditId = deadLetters.redrive(loadId, messageId, audit);
        if (auditId.isEmpty()) {
            throw Problem.of(Response.Status.NOT_FOUND, "Not Found",
                    "no parked message " + messageId + " of load " + loadId, null).exception();
        }
        audits.logged(audit, auditId.get(), "redriven");
        return RestResponse.ok(new Redriven(loadId, messageId, true, auditId.get()));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("/acknowledge")
    @Consumes(MediaType.WILDCARD)
    @RunOnVirtualThread
    public RestResponse<Acknowledged> acknowledge(@QueryParam("loadId") String loadId, @QueryParam("messageId") String messageId,
                                String body) {
        if (loadId == null || messageId == null) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "loadId and messageId are required", null).exception();
        }
        String reason = OperatorReason.from(body, "what was done instead of a redrive");
        AuditRecord audit = audits.of("queue.acknowledge", loadId + "/" + messageId, Map.of("reason", reason));
        Optional<Long> auditId;
        try {
            auditId = deadLetters.acknowledgeParked(loadId, messageId, audit);
        } catch (UnsupportedOperationException e) {
            throw Problem.of(Response.Status.CONFLICT, "Conflict", e.getMessage(), null).exception();
        }
        if (auditId.isEmpty()) {
            throw Problem.of(Response.Status.CONFLICT, "Conflict",
                    "no parked message " + messageId + " of load " + loadId + " waiting for an acknowledgement", null).exception();
        }
        audits.logged(audit, auditId.get(), "acknowledged");
        return RestResponse.ok(new Acknowledged(loadId, messageId, true, auditId.get()));
    }

    @RegisterForReflection
    record ParkedView(String loadId, String messageId, String reason, int receiveCount, Instant enqueuedAt,
                      Instant parkedAt, @JsonInclude(JsonInclude.Include.NON_NULL) Instant acknowledgedAt, String body) {
        static ParkedView of(ParkedMessage p) {
            return new ParkedView(p.loadId(), p.messageId(), p.reason(), p.receiveCount(), p.enqueuedAt(), p.parkedAt(),
                    p.acknowledgedAt(), p.body());
        }
    }

    @RegisterForReflection
    record Acknowledged(String loadId, String messageId, boolean acknowledged, long auditId) {
    }

    @RegisterForReflection
    record Parked(List<ParkedView> parked) {
    }

    @RegisterForReflection
    record Redriven(String loadId, String messageId, boolean redriven, long auditId) {
    }
}
