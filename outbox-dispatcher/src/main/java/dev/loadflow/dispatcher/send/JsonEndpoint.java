package dev.loadflow.dispatcher.send;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * One channel endpoint, as a Quarkus REST client built per URL: a JSON POST carrying the
 * idempotency key. The response is classified by {@link SendResult#of}, never thrown.
 */
public interface JsonEndpoint {

    String IDEMPOTENCY_KEY = "Idempotency-Key";

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.WILDCARD)
    Response post(@HeaderParam(IDEMPOTENCY_KEY) String idempotencyKey, String json);
}
