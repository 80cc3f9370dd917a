package dev.loadflow.evals;

import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.PoolOptions;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The load queue on SQS FIFO for a benchmark of the packaged services: ElasticMQ, an
 * SQS-compatible server, in this JVM, with the load queue and its dead-letter queue, and the JVM
 * options that point every service at them. What it measures is loadflow on ElasticMQ, not on
 * AWS: the queue's own latency and limits differ.
 */
final class SqsStandIn implements AutoCloseable {

    private final SQSRestServer server;
    private final SqsClient client;
    private final String base;
    private final String queueUrl;
    private final Vertx vertx;
    /** Where the services send their calls: ElasticMQ itself, or a proxy that holds each call {@code latency} first. */
    private final String endpoint;

    /** @param latency how long each of the services' calls takes on its way, as a round trip to AWS's endpoint would */
    SqsStandIn(Duration latency) {
        server = SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
        int port = server.waitUntilStarted().localAddress().getPort();
        base = "http://127.0.0.1:" + port;
        if (latency.isZero()) {
            vertx = null;
            endpoint = base;
        } else {
            vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
            endpoint = "http://127.0.0.1:" + delaying(port, latency.toMillis());
        }
        client = SqsClient.builder().endpointOverride(URI.create(base)).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create()).build();
        queueUrl = fifo("loads");
        fifo("loads-dead");
    }

    private String fifo(String name) {
        return client.createQueue(b -> b.queueName(name + ".fifo").attributes(Map.of(
                QueueAttributeName.FIFO_QUEUE, "true", QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "false"))).queueUrl();
    }

    /**
     * A proxy on a port of its own that forwards each request to ElasticMQ on {@code port}
     * {@code millis} after it arrived, and its answer straight back.
     */
    private int delaying(int port, long millis) {
        HttpClient elasticMq = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                new PoolOptions().setHttp1MaxSize(256));
        HttpServer proxy = vertx.createHttpServer().requestHandler(request -> request.body().onSuccess(body ->
                vertx.setTimer(millis, fired -> elasticMq.request(request.method(), port, "127.0.0.1", request.uri())
                        .compose(forward -> {
                            forward.headers().setAll(request.headers());
                            return forward.send(body);
                        })
                        .compose(answer -> answer.body().map(answerBody -> {
                            request.response().setStatusCode(answer.statusCode()).headers().setAll(answer.headers());
                            return answerBody;
                        }))
                        .onSuccess(answerBody -> request.response().end(answerBody))
                        .onFailure(failed -> request.response().setStatusCode(502).end(String.valueOf(failed))))));
        return proxy.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().join().actualPort();
    }

    /** The services' options ({@code loadflow.queue.*}): the queue on this server, through the delaying proxy if any. */
    List<String> jvmArgs() {
        return List.of("-Dloadflow.queue.kind=sqs", "-Dloadflow.queue.sqs.endpoint=" + endpoint,
                "-Dloadflow.queue.sqs.url=" + queueUrls().get(0), "-Dloadflow.queue.sqs.dead-letter-url=" + queueUrls().get(1));
    }

    /** Where the services send their calls ({@code loadflow.queue.sqs.endpoint}). */
    String endpoint() {
        return endpoint;
    }

    /** The load queue's URL and its dead-letter queue's, as the services reach them. */
    List<String> queueUrls() {
        return List.of(endpoint + "/000000000000/loads.fifo", endpoint + "/000000000000/loads-dead.fifo");
    }

    /** Messages in the load queue, waiting or in flight. */
    long queued() {
        Map<QueueAttributeName, String> attributes = client.getQueueAttributes(b -> b.queueUrl(queueUrl).attributeNames(
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                .attributes();
        return Long.parseLong(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
                + Long.parseLong(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE));
    }

    @Override
    public void close() {
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().join();
        }
        client.close();
        server.stopAndWait();
    }
}
