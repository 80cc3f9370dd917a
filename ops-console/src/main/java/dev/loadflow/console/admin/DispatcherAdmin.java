package dev.loadflow.console.admin;

import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** The outbox-dispatcher's admin API for dead rows, called with the console user's own credential. */
@RegisterRestClient(configKey = "dispatcher-admin")
@Path("/admin/outbox")
public interface DispatcherAdmin {

    @POST
    @Path("/replay")
    Response replay(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization, @QueryParam("loadId") String loadId,
                    @QueryParam("actionType") String actionType, @QueryParam("since") String since,
                    @QueryParam("until") String until, @QueryParam("limit") Integer limit,
                    @QueryParam("dryRun") boolean dryRun, @QueryParam("force") boolean force);
}
