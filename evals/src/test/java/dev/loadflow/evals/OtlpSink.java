package dev.loadflow.evals;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;

import java.util.concurrent.atomic.AtomicLong;

/**
 * An OpenTelemetry collector that takes every export and keeps nothing: OTLP over gRPC
 * (HTTP/2 without TLS), each call answered with an empty {@code Export*ServiceResponse} and
 * {@code grpc-status: 0}. The deployment benchmark runs the services with tracing on, as the
 * manifests ship them, exporting here: the services pay for their spans as in production, and
 * nothing fails for want of a collector.
 */
final class OtlpSink implements AutoCloseable {

    /** An empty protobuf message in a gRPC frame: not compressed, length 0. */
    private static final Buffer EMPTY_MESSAGE = Buffer.buffer(new byte[5]);

    private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    private final HttpServer server;
    private final AtomicLong exports = new AtomicLong();

    OtlpSink() {
        server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0).setHttp2ClearTextEnabled(true))
                .requestHandler(request -> request.body().onComplete(body -> {
                    exports.incrementAndGet();
                    request.response().putHeader("content-type", "application/grpc").putTrailer("grpc-status", "0")
                            .end(EMPTY_MESSAGE);
                }));
        server.listen().toCompletionStage().toCompletableFuture().join();
    }

    /** The endpoint the services export to ({@code quarkus.otel.exporter.otlp.endpoint}). */
    String endpoint() {
        return "http://127.0.0.1:" + server.actualPort();
    }

    /** Export calls answered so far. */
    long exports() {
        return exports.get();
    }

    @Override
    public void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }
}
