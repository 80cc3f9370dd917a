package dev.loadflow.testing;

import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

import java.net.URI;
import java.util.Map;

/**
 * ElasticMQ, an SQS-compatible server started in-process from a Maven test dependency, with a
 * client for it: what the SQS FIFO queue's tests run against.
 */
public final class ElasticMq implements AutoCloseable {

    private final SQSRestServer server;
    private final SqsClient client;

    private ElasticMq(SQSRestServer server, SqsClient client) {
        this.server = server;
        this.client = client;
    }

    /** Starts a server on a free port of 127.0.0.1. */
    public static ElasticMq start() {
        SQSRestServer server = SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
        int port = server.waitUntilStarted().localAddress().getPort();
        SqsClient client = SqsClient.builder().endpointOverride(URI.create("http://127.0.0.1:" + port))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create()).build();
        return new ElasticMq(server, client);
    }

    public SqsClient client() {
        return client;
    }

    /** Creates {@code name}.fifo (explicit deduplication ids, as loadflow sends) and returns its URL. */
    public String createFifoQueue(String name) {
        return client.createQueue(b -> b.queueName(name + ".fifo").attributes(Map.of(
                QueueAttributeName.FIFO_QUEUE, "true",
                QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "false"))).queueUrl();
    }

    @Override
    public void close() {
        client.close();
        server.stopAndWait();
    }
}
