package dev.loadflow.dispatcher.send;

import io.quarkus.rest.client.reactive.QuarkusRestClientBuilder;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.core.Response;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** {@link ChannelTransport} on the Quarkus REST client, one client per endpoint URL. */
public final class RestClientTransport implements ChannelTransport {

    private final Map<URI, JsonEndpoint> clients = new ConcurrentHashMap<>();

    @Override
    public Answer post(URI url, Duration timeout, String idempotencyKey, String traceparent, String json,
                       Map<String, String> headers) {
        if (!JsonEndpoint.EXTRA_HEADERS.containsAll(headers.keySet())) {
            throw new IllegalArgumentException("the rest-client transport sends no headers but " + JsonEndpoint.EXTRA_HEADERS
                    + " (auth=header needs the vertx or jdk transport); got " + headers.keySet());
        }
        JsonEndpoint client = clients.computeIfAbsent(url, u -> QuarkusRestClientBuilder.newBuilder()
                .baseUri(u)
                .connectTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .readTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .property("microprofile.rest.client.disable.default.mapper", true)
                .build(JsonEndpoint.class));
        try (Response response = client.post(idempotencyKey, traceparent, headers.get(JsonEndpoint.AUTHORIZATION),
                headers.get(JsonEndpoint.WEBHOOK_ID),
                headers.get(JsonEndpoint.WEBHOOK_TIMESTAMP), headers.get(JsonEndpoint.WEBHOOK_SIGNATURE), json)) {
            String body = response.hasEntity() ? response.readEntity(String.class) : "";
            return new Answer(response.getStatus(), body, response.getHeaderString("Retry-After"));
        } catch (ProcessingException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new Unreachable(cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : " " + cause.getMessage()), e);
        }
    }
}
