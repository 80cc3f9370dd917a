package dev.loadflow.store.queue;

import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.testing.ElasticMq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.testing.Fixtures.ping;
import static org.assertj.core.api.Assertions.assertThat;

/** enqueueAll and ackAll on SQS use the batch calls: ten messages a call, not one. */
class SqsFifoLoadQueueBatchTest {

    @RegisterExtension
    static final ElasticMq SQS = new ElasticMq();

    private static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");

    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    @Test
    void twentyThreeMessagesAreQueuedAndAckedInThreeCallsEach() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        LoadQueue queue = new SqsFifoLoadQueue(counting(SQS.client()), SQS.createFifoQueue("batch-" + suffix),
                SQS.createFifoQueue("batch-dead-" + suffix), Duration.ofSeconds(30), FakeClock.at(T0));
        List<QueueMessage> messages = new ArrayList<>();
        for (int i = 0; i < 23; i++) {
            InboundEvent event = ping(newLoadId(), "ping_" + i, T0);
            messages.add(QueueMessage.of(event));
        }

        queue.enqueueAll(messages);
        List<ReceivedMessage> received = new ArrayList<>();
        for (int attempt = 0; attempt < 10 && received.size() < 23; attempt++) {
            received.addAll(queue.receive(23 - received.size(), Duration.ofSeconds(1)));
        }
        int acked = queue.ackAll(received.stream().map(ReceivedMessage::receiptHandle).toList());

        assertThat(received).extracting(ReceivedMessage::messageId)
                .containsExactlyInAnyOrderElementsOf(messages.stream().map(QueueMessage::messageId).toList());
        assertThat(acked).isEqualTo(23);
        assertThat(count("sendMessageBatch")).isEqualTo(3);
        assertThat(count("deleteMessageBatch")).isEqualTo(3);
        assertThat(count("sendMessage") + count("deleteMessage")).as("no call per message").isZero();
        assertThat(queue.receive(1, Duration.ZERO)).as("nothing left to redeliver").isEmpty();
    }

    private int count(String method) {
        return calls.getOrDefault(method, new AtomicInteger()).get();
    }

    /** The client, counting the calls made on it by name. */
    private SqsClient counting(SqsClient client) {
        return (SqsClient) Proxy.newProxyInstance(SqsClient.class.getClassLoader(), new Class<?>[]{SqsClient.class},
                (proxy, method, args) -> {
                    calls.computeIfAbsent(method.getName(), k -> new AtomicInteger()).incrementAndGet();
                    try {
                        return method.invoke(client, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
