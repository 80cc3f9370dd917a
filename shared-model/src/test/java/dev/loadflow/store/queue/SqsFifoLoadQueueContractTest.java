package dev.loadflow.store.queue;

import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * The same {@link LoadQueueContract} on SQS FIFO, against ElasticMQ (an SQS-compatible server
 * started from a Maven test dependency). SQS keeps its own clock in whole seconds, so time
 * really passes here and the visibility timeout is 4 seconds.
 */
class SqsFifoLoadQueueContractTest extends LoadQueueContract {

    private static SQSRestServer server;
    private static SqsClient sqs;

    @BeforeAll
    static void startElasticMq() {
        server = SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
        int port = server.waitUntilStarted().localAddress().getPort();
        sqs = SqsClient.builder().endpointOverride(URI.create("http://127.0.0.1:" + port)).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    @AfterAll
    static void stopElasticMq() {
        sqs.close();
        server.stopAndWait();
    }

    private static String createFifoQueue(String name) {
        return sqs.createQueue(b -> b.queueName(name + ".fifo").attributes(Map.of(
                QueueAttributeName.FIFO_QUEUE, "true",
                QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "false"))).queueUrl();
    }

    @Override
    protected LoadQueue loadQueue(Clock clock, Duration visibilityTimeout) {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        return new SqsFifoLoadQueue(sqs, createFifoQueue("load-queue-" + suffix), createFifoQueue("load-queue-dead-" + suffix),
                visibilityTimeout, clock);
    }

    @Override
    protected void reset() {
        // every test gets queues of its own
    }

    @Override
    protected Duration visibility() {
        return Duration.ofSeconds(4);
    }

    @Override
    protected void passTime(Duration duration) {
        clock.advance(duration);
        try {
            Thread.sleep(duration.toMillis() + 100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    protected boolean reportsDuplicateEnqueue() {
        return false;
    }

    @Override
    protected boolean reportsOldestMessageAge() {
        return false;
    }
}
