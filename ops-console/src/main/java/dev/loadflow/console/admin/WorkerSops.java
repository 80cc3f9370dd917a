package dev.loadflow.console.admin;

import dev.loadflow.service.admin.SopAnswers;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/**
 * The load-worker's admin API for the clients' SOPs, called with the console user's own
 * credential, in the records the worker answers with. A refusal is thrown as the
 * {@code WebApplicationException} carrying the worker's problem.
 */
@RegisterRestClient(configKey = "worker-admin")
@Path("/admin/sops")
public interface WorkerSops {

    /** The client's next version; the worker checks every field and audits the change. */
    @PUT
    @Path("/{clientId}")
    @Consumes(MediaType.APPLICATION_JSON)
    SopAnswers.Added put(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization, @PathParam("clientId") String clientId,
                         SopAnswers.NewVersion version);

    /** What the rules would text and decide on a load; nothing is written. */
    @POST
    @Path("/{clientId}/preview")
    @Consumes(MediaType.APPLICATION_JSON)
    SopAnswers.Preview preview(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization, @PathParam("clientId") String clientId,
                               SopAnswers.PreviewRequest request);
}
