package dev.loadflow.dispatcher.send;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * One channel endpoint, as a Quarkus REST client built per URL: a JSON POST carrying the
 * idempotency key and the send's trace. The response is classified by {@link SendResult#of}, never thrown.
 */
public interface JsonEndpoint {

    String IDEMPOTENCY_KEY = "Idempotency-Key";
    String TRACEPARENT = "traceparent";

    /** {@code traceparent}: the send's span (null leaves the header out). */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.WILDCARD)
    Response post(@HeaderParam(IDEMPOTENCY_KEY) String idempotencyKey, @HeaderParam(TRACEPARENT) String traceparent,
                  String json);
}
