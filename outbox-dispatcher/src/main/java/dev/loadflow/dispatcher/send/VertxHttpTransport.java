package dev.loadflow.dispatcher.send;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.PoolOptions;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link ChannelTransport} on Vert.x's HTTP client: keep-alive connections pooled per host, the
 * request written and its answer read on the event loop while the sending (virtual) thread waits.
 * Of the three transports it spends the least CPU per send (docs/benchmarks.md), and it is the
 * service's default.
 */
public final class VertxHttpTransport implements ChannelTransport, AutoCloseable {

    private final HttpClient client;

    /** @param connectionsPerHost keep-alive connections to one host at most: the sends in flight of every channel it may serve */
    public VertxHttpTransport(Vertx vertx, int connectionsPerHost) {
        // idle connections are closed before common servers and load balancers close theirs (60 s and up)
        this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setKeepAliveTimeout(30),
                new PoolOptions().setHttp1MaxSize(connectionsPerHost));
    }

    @Override
    public Answer post(URI url, Duration timeout, String idempotencyKey, String traceparent, String json,
                       Map<String, String> headers) {
        // from the URI's parts: an absolute URI string would be parsed again, as a java.net.URL, per send
        boolean ssl = "https".equalsIgnoreCase(url.getScheme());
        String query = url.getRawQuery();
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        RequestOptions request = new RequestOptions().setMethod(HttpMethod.POST).setSsl(ssl).setHost(url.getHost())
                .setPort(url.getPort() != -1 ? url.getPort() : ssl ? 443 : 80)
                .setURI(query == null ? path : path + "?" + query)
                .setConnectTimeout(timeout.toMillis()).setIdleTimeout(timeout.toMillis())
                .putHeader("Content-Type", "application/json")
                .putHeader(JsonEndpoint.IDEMPOTENCY_KEY, idempotencyKey);
        if (traceparent != null) {
            request.putHeader(JsonEndpoint.TRACEPARENT, traceparent);
        }
        headers.forEach(request::putHeader);
        return send(request, json, timeout);
    }

    @Override
    public Answer exchange(Request request) {
        URI url = request.url();
        boolean ssl = "https".equalsIgnoreCase(url.getScheme());
        String query = url.getRawQuery();
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.valueOf(request.method())).setSsl(ssl)
                .setHost(url.getHost()).setPort(url.getPort() != -1 ? url.getPort() : ssl ? 443 : 80)
                .setURI(query == null ? path : path + "?" + query)
                .setConnectTimeout(request.timeout().toMillis()).setIdleTimeout(request.timeout().toMillis());
        request.headers().forEach(options::putHeader);
        return send(options, request.body(), request.timeout());
    }

    /** Sends and waits for the answer; tells a connection never made (nothing arrived) from an answer lost. */
    private Answer send(RequestOptions request, String body, Duration timeout) {
        AtomicBoolean written = new AtomicBoolean();
        // The body is asked for inside the send's own continuation, the moment the response arrives, as Vert.x's own
        // examples do: a response whose body handler is set late loses the bytes that came before it.
        Future<Answer> answer = client.request(request)
                .compose(outgoing -> {
                    written.set(true);
                    return (body == null ? outgoing.send() : outgoing.send(body))
                            .compose(response -> response.body().map(received ->
                                    new Answer(response.statusCode(), received.toString(), response.getHeader("Retry-After"))));
                });
        try {
            return answer.toCompletionStage().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new Unreachable(cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : " " + cause.getMessage()),
                    cause, written.get());
        } catch (TimeoutException e) {
            // the connection's idle timeout closes the request the answer never came for
            throw new Unreachable("no answer within " + timeout, e, written.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted", e, written.get());
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
