package dev.loadflow.console.admin;

import dev.loadflow.service.admin.OperatorRequests;
import dev.loadflow.service.admin.ReplayAnswer;
import dev.loadflow.service.admin.RowAnswers;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/**
 * The outbox-dispatcher's admin API for dead and ambiguous rows, called with the console user's
 * own credential, in the records the dispatcher answers with. A refusal is thrown as the
 * {@code WebApplicationException} carrying the dispatcher's problem.
 */
@RegisterRestClient(configKey = "dispatcher-admin")
@Path("/admin/outbox")
public interface DispatcherAdmin {

    /** The dry run of a replay: what it would requeue; nothing changes. */
    @POST
    @Path("/replay")
    ReplayAnswer.Preview replayPreview(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
                                       @QueryParam("loadId") String loadId, @QueryParam("actionType") String actionType,
                                       @QueryParam("since") String since, @QueryParam("until") String until,
                                       @QueryParam("limit") Integer limit, @QueryParam("dryRun") boolean dryRun);

    /** Replays the dead rows the filters match (stale rows left dead); {@code dryRun} false. */
    @POST
    @Path("/replay")
    ReplayAnswer.Replayed replay(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
                                 @QueryParam("loadId") String loadId, @QueryParam("actionType") String actionType,
                                 @QueryParam("since") String since, @QueryParam("until") String until,
                                 @QueryParam("limit") Integer limit, @QueryParam("dryRun") boolean dryRun);

    /** Resolves an ambiguous row. */
    @POST
    @Path("/{outboxId}/resolve")
    @Consumes(MediaType.APPLICATION_JSON)
    RowAnswers.Resolved resolve(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization, @PathParam("outboxId") String outboxId,
                                OperatorRequests.Resolve resolution);

    /** Acknowledges a dead row handled another way. */
    @POST
    @Path("/{outboxId}/acknowledge")
    @Consumes(MediaType.APPLICATION_JSON)
    RowAnswers.Acknowledged acknowledge(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
                                        @PathParam("outboxId") String outboxId, OperatorRequests.Acknowledge acknowledgement);
}
