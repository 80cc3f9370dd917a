package dev.loadflow.console.admin;

import dev.loadflow.service.admin.HeldRepairAnswer;
import dev.loadflow.service.admin.OperatorRequests;
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
 * The load-worker's admin API for held loads, called with the console user's own credential, in
 * the records the worker answers with. A refusal is thrown as the {@code WebApplicationException}
 * carrying the worker's problem.
 */
@RegisterRestClient(configKey = "worker-admin")
@Path("/admin/loads")
public interface WorkerAdmin {

    @POST
    @Path("/{loadId}/retry")
    HeldRepairAnswer.Changed retry(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization, @PathParam("loadId") String loadId);

    @POST
    @Path("/{loadId}/skip")
    @Consumes(MediaType.APPLICATION_JSON)
    HeldRepairAnswer.Changed skip(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization, @PathParam("loadId") String loadId,
                                  OperatorRequests.Acknowledge reason);

    /** The dry run of a bulk repair: the held heads the filters match, at most {@code limit}; nothing changes. */
    @POST
    @Path("/held/repair")
    @Consumes(MediaType.APPLICATION_JSON)
    HeldRepairAnswer.Preview repairPreview(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
                                           @QueryParam("since") String since, @QueryParam("until") String until,
                                           @QueryParam("messageType") String messageType, @QueryParam("limit") Integer limit,
                                           @QueryParam("dryRun") boolean dryRun, OperatorRequests.Repair repair);

    /** Retries or skips the held heads the filters match, at most {@code limit}; {@code dryRun} false. */
    @POST
    @Path("/held/repair")
    @Consumes(MediaType.APPLICATION_JSON)
    HeldRepairAnswer.Repaired repair(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
                                     @QueryParam("since") String since, @QueryParam("until") String until,
                                     @QueryParam("messageType") String messageType, @QueryParam("limit") Integer limit,
                                     @QueryParam("dryRun") boolean dryRun, OperatorRequests.Repair repair);
}
