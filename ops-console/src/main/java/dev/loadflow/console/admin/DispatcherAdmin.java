package dev.loadflow.console.admin;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import java.util.Map;

/** The outbox-dispatcher's admin API for dead and ambiguous rows, called with the console user's own credential. */
@RegisterRestClient(configKey = "dispatcher-admin")
@Path("/admin/outbox")
public interface DispatcherAdmin {

    @POST
    @Path("/replay")
    Response replay(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization, @QueryParam("loadId") String loadId,
                    @QueryParam("actionType") String actionType, @QueryParam("since") String since,
                    @QueryParam("until") String until, @QueryParam("limit") Integer limit,
                    @QueryParam("dryRun") boolean dryRun, @QueryParam("force") boolean force);

    /** Resolves an ambiguous row: {@code {"as": "delivered"|"resend", "reason": …}}. */
    @POST
    @Path("/{outboxId}/resolve")
    @Consumes(MediaType.APPLICATION_JSON)
    Response resolve(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization, @PathParam("outboxId") String outboxId,
                     Map<String, String> resolution);

    /** Acknowledges a dead row handled another way: {@code {"reason": …}}. */
    @POST
    @Path("/{outboxId}/acknowledge")
    @Consumes(MediaType.APPLICATION_JSON)
    Response acknowledge(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization, @PathParam("outboxId") String outboxId,
                         Map<String, String> acknowledgement);
}
