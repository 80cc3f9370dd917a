package dev.loadflow.pump.admin;

import dev.loadflow.model.id.InboundIds;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.service.security.Roles;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.store.timer.TimerStore;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestResponse;

import java.time.Instant;
import java.util.List;

/** {@code GET /admin/timers?loadId=}: a load's timers and their status (viewers read, operators change). */
@Path("/admin/timers")
public class TimersResource {

    private final TimerStore timers;

    TimersResource(TimerStore timers) {
        this.timers = timers;
    }

    @GET
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @Operation(summary = "A load's timers: when each fires, and whether it fired or was cancelled")
    public RestResponse<Timers> forLoad(@QueryParam("loadId") String loadId) {
        if (!InboundIds.isValidLoadId(loadId)) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "loadId is required: 1 to 64 characters of [A-Za-z0-9_-]",
                    "loadId").exception();
        }
        return RestResponse.ok(new Timers(loadId, timers.forLoad(loadId).stream().map(TimerView::of).toList()));
    }

    @RegisterForReflection
    record TimerView(String timerId, Instant fireAt, String status, Instant firedAt, Instant cancelledAt) {
        static TimerView of(Timer t) {
            return new TimerView(t.timerId().toString(), t.fireAt(), t.status().wire(), t.firedAt(), t.cancelledAt());
        }
    }

    @RegisterForReflection
    record Timers(String loadId, List<TimerView> timers) {
    }
}
