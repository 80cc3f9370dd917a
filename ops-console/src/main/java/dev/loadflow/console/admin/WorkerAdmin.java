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

/** The load-worker's admin API for held loads, called with the console user's own credential. */
@RegisterRestClient(configKey = "worker-admin")
@Path("/admin/loads")
public interface WorkerAdmin {

    @POST
    @Path("/{loadId}/retry")
    Response retry(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization, @PathParam("loadId") String loadId);

    /**
     * Retries or skips the held heads the filters match, at most {@code limit}:
     * {@code {"action": "retry"|"skip", "reason": …}}; {@code dryRun} lists them and changes nothing.
     */
    @POST
    @Path("/held/repair")
    @Consumes(MediaType.APPLICATION_JSON)
    Response repair(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization, @QueryParam("since") String since,
                    @QueryParam("until") String until, @QueryParam("messageType") String messageType,
                    @QueryParam("limit") Integer limit, @QueryParam("dryRun") boolean dryRun, Map<String, String> repair);

    @POST
    @Path("/{loadId}/skip")
    @Consumes(MediaType.APPLICATION_JSON)
    Response skip(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization, @PathParam("loadId") String loadId,
                  Map<String, String> reason);
}
