package dev.loadflow.worker.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.ParkedMessage;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * Poison messages of the load queue, for operators (bearer token, see AdminAuth): list them,
 * and re-drive one once its cause is fixed. Works on the PostgreSQL queue and on SQS FIFO.
 */
@Path("/admin/queue/dead")
@Produces(MediaType.APPLICATION_JSON)
public class QueueAdminResource {

    private final LoadQueue queue;

    QueueAdminResource(LoadQueue queue) {
        this.queue = queue;
    }

    @GET
    @RunOnVirtualThread
    public Response parked(@QueryParam("limit") @DefaultValue("50") int limit) {
        if (limit < 1 || limit > 500) {
            return Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "limit must be between 1 and 500", "limit").response();
        }
        ObjectNode json = JsonReader.MAPPER.createObjectNode();
        ArrayNode list = json.putArray("parked");
        for (ParkedMessage p : queue.parked(limit)) {
            list.addObject().put("loadId", p.loadId()).put("messageId", p.messageId()).put("reason", p.reason())
                    .put("receiveCount", p.receiveCount()).put("enqueuedAt", p.enqueuedAt().toString())
                    .put("parkedAt", p.parkedAt().toString()).put("body", p.body());
        }
        return Response.ok(json.toString()).build();
    }

    @POST
    @Path("/redrive")
    @RunOnVirtualThread
    public Response redrive(@QueryParam("loadId") String loadId, @QueryParam("messageId") String messageId) {
        if (loadId == null || messageId == null) {
            return Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "loadId and messageId are required", null).response();
        }
        if (!queue.redrive(loadId, messageId)) {
            return Problem.of(Response.Status.NOT_FOUND, "Not Found",
                    "no parked message " + messageId + " of load " + loadId, null).response();
        }
        return Response.ok(JsonReader.MAPPER.createObjectNode().put("loadId", loadId).put("messageId", messageId)
                .put("redriven", true).toString()).build();
    }
}
