package dev.loadflow.testing;

import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
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
 * client for it: what the SQS FIFO queue's tests run against. Register it as a JUnit extension
 * ({@code @RegisterExtension static final ElasticMq SQS = new ElasticMq();}): it starts before
 * the class's tests and stops after them.
 */
public final class ElasticMq implements BeforeAllCallback, AfterAllCallback {

    private SQSRestServer server;
    private SqsClient client;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
        int port = server.waitUntilStarted().localAddress().getPort();
        client = SqsClient.builder().endpointOverride(URI.create("http://127.0.0.1:" + port))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        client.close();
        server.stopAndWait();
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
}
