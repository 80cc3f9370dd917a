package dev.loadflow.dispatcher.send;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** {@link ChannelTransport} on {@code java.net.http}, for plain-Java harnesses. */
public final class JdkHttpTransport implements ChannelTransport {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Override
    public Answer post(URI url, Duration timeout, String idempotencyKey, String traceparent, String json,
                       Map<String, String> headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(url).timeout(timeout)
                .header("Content-Type", "application/json")
                .header(JsonEndpoint.IDEMPOTENCY_KEY, idempotencyKey);
        if (traceparent != null) {
            builder.header(JsonEndpoint.TRACEPARENT, traceparent);
        }
        headers.forEach(builder::header);
        return send(builder.POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    @Override
    public Answer exchange(Request request) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(request.url()).timeout(request.timeout());
        request.headers().forEach(builder::header);
        return send(builder.method(request.method(), request.body() == null
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(request.body())).build());
    }

    private Answer send(HttpRequest request) {
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body(), response.headers().firstValue("Retry-After").orElse(null));
        } catch (IOException e) {
            // a connection never made (refused, its timeout): nothing arrived
            boolean connected = !(e instanceof java.net.ConnectException || e instanceof java.net.http.HttpConnectTimeoutException);
            throw new Unreachable(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage()), e,
                    connected);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted", e);
        }
    }
}
