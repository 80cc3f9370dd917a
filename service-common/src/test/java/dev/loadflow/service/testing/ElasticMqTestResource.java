package dev.loadflow.service.testing;

import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;

import java.util.Map;

/**
 * An SQS-compatible server (ElasticMQ) with a load queue and its dead-letter queue, and the
 * configuration that makes a service use them ({@code loadflow.queue.kind=sqs}).
 */
public class ElasticMqTestResource implements io.quarkus.test.common.QuarkusTestResourceLifecycleManager {

    private SQSRestServer server;

    @Override
    public Map<String, String> start() {
        server = SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
        int port = server.waitUntilStarted().localAddress().getPort();
        String base = "http://127.0.0.1:" + port;
        try (var sqs = software.amazon.awssdk.services.sqs.SqsClient.builder()
                .endpointOverride(java.net.URI.create(base))
                .region(software.amazon.awssdk.regions.Region.US_EAST_1)
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("local", "local")))
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build()) {
            for (String name : new String[]{"loads.fifo", "loads-dead.fifo"}) {
                sqs.createQueue(b -> b.queueName(name).attributes(Map.of(
                        software.amazon.awssdk.services.sqs.model.QueueAttributeName.FIFO_QUEUE, "true")));
            }
        }
        return Map.of(
                "loadflow.queue.kind", "sqs",
                "loadflow.queue.sqs.endpoint", base,
                "loadflow.queue.sqs.url", base + "/000000000000/loads.fifo",
                "loadflow.queue.sqs.dead-letter-url", base + "/000000000000/loads-dead.fifo");
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stopAndWait();
        }
    }
}
