package dev.loadflow.pump.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.model.id.InboundIds;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.store.timer.TimerStore;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** {@code GET /admin/timers?loadId=}: a load's timers and their status (bearer token, see AdminAuth). */
@Path("/admin/timers")
public class TimersResource {

    private final TimerStore timers;

    TimersResource(TimerStore timers) {
        this.timers = timers;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    public Response forLoad(@QueryParam("loadId") String loadId) {
        if (!InboundIds.isValidLoadId(loadId)) {
            return Problem.of(Response.Status.BAD_REQUEST, "loadId is required: 1 to 64 characters of [A-Za-z0-9_-]")
                    .response();
        }
        ObjectNode json = JsonReader.MAPPER.createObjectNode().put("loadId", loadId);
        ArrayNode list = json.putArray("timers");
        for (Timer t : timers.forLoad(loadId)) {
            list.addObject().put("timerId", t.timerId().toString()).put("fireAt", t.fireAt().toString())
                    .put("status", t.status().wire())
                    .put("firedAt", t.firedAt() == null ? null : t.firedAt().toString())
                    .put("cancelledAt", t.cancelledAt() == null ? null : t.cancelledAt().toString());
        }
        return Response.ok(json.toString()).build();
    }
}
