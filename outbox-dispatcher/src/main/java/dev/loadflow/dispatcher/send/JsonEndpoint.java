package dev.loadflow.dispatcher.send;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.Set;

/**
 * One channel endpoint, as a Quarkus REST client built per URL: a JSON POST carrying the
 * idempotency key and the send's trace. The response is classified by {@link SendResult#of}, never thrown.
 */
public interface JsonEndpoint {

    String IDEMPOTENCY_KEY = "Idempotency-Key";
    String TRACEPARENT = "traceparent";
    /** A signed webhook's headers (the Standard Webhooks specification). */
    String WEBHOOK_ID = "webhook-id";
    String WEBHOOK_TIMESTAMP = "webhook-timestamp";
    String WEBHOOK_SIGNATURE = "webhook-signature";
    String AUTHORIZATION = "Authorization";
    /** The headers besides the key and the trace that this client sends. */
    Set<String> EXTRA_HEADERS = Set.of(AUTHORIZATION, WEBHOOK_ID, WEBHOOK_TIMESTAMP, WEBHOOK_SIGNATURE);

    /**
     * {@code traceparent}: the send's span; {@code Authorization} the channel's (bearer or basic); the
     * {@code webhook-*} headers a signed webhook's (null leaves a header out).
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.WILDCARD)
    Response post(@HeaderParam(IDEMPOTENCY_KEY) String idempotencyKey, @HeaderParam(TRACEPARENT) String traceparent,
                  @HeaderParam(AUTHORIZATION) String authorization,
                  @HeaderParam(WEBHOOK_ID) String webhookId, @HeaderParam(WEBHOOK_TIMESTAMP) String webhookTimestamp,
                  @HeaderParam(WEBHOOK_SIGNATURE) String webhookSignature, String json);
}
