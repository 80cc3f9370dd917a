package dev.loadflow.evals;

import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

import java.net.URI;
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

    SqsStandIn() {
        server = SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
        base = "http://127.0.0.1:" + server.waitUntilStarted().localAddress().getPort();
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

    /** The services' options ({@code loadflow.queue.*}): the queue on this server. */
    List<String> jvmArgs() {
        return List.of("-Dloadflow.queue.kind=sqs", "-Dloadflow.queue.sqs.endpoint=" + base,
                "-Dloadflow.queue.sqs.url=" + queueUrl, "-Dloadflow.queue.sqs.dead-letter-url=" + base + "/000000000000/loads-dead.fifo");
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
        client.close();
        server.stopAndWait();
    }
}
