package dev.loadflow.store.queue;

import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.testing.ElasticMq;
import dev.loadflow.testing.MemoryUnrunReceives;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.SqsClient;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.testing.Fixtures.ping;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * enqueueAll, ingest's enqueue and ackAll on SQS use the batch calls: ten messages a call, not
 * one; a receive of many loads makes its calls at once, not one round trip after another.
 */
class SqsFifoLoadQueueBatchTest {

    @RegisterExtension
    static final ElasticMq SQS = new ElasticMq();

    private static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");

    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    @Test
    void twentyThreeMessagesAreQueuedAndAckedInThreeCallsEach() {
        LoadQueue queue = queue("batch");
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

    @Test
    void ingestsBatchAsksTheLogOnceAndSendsWhatItHasNotLoggedTenACallInOrder() {
        LoadQueue queue = queue("ingest");
        String busy = newLoadId();
        List<QueueMessage> messages = new ArrayList<>(pings(busy, 21));
        messages.add(QueueMessage.of(ping(busy, "ping_03", T0)));
        messages.add(QueueMessage.of(ping(newLoadId(), "ping_00", T0)));
        AtomicInteger questions = new AtomicInteger();
        EventStore log = loggedAre(questions, busy + "/ping_00", busy + "/ping_01");

        List<LoadQueue.Intake> intakes = queue.enqueueAllUnlessLogged(messages, log);
        List<ReceivedMessage> received = new ArrayList<>();
        for (int attempt = 0; attempt < 20 && received.size() < 20; attempt++) {
            List<ReceivedMessage> batch = queue.receive(2, 10, Duration.ofSeconds(1));
            received.addAll(batch);
            queue.ackAll(batch.stream().map(ReceivedMessage::receiptHandle).toList());
        }

        assertThat(intakes).startsWith(LoadQueue.Intake.LOGGED, LoadQueue.Intake.LOGGED, LoadQueue.Intake.QUEUED)
                .endsWith(LoadQueue.Intake.QUEUED, LoadQueue.Intake.ALREADY_QUEUED, LoadQueue.Intake.QUEUED)
                .filteredOn(LoadQueue.Intake.QUEUED::equals).hasSize(20);
        assertThat(questions).as("one question to the log for the batch").hasValue(1);
        assertThat(count("sendMessageBatch")).as("20 messages, ten a call").isEqualTo(2);
        assertThat(count("sendMessage")).as("no call per message").isZero();
        assertThat(received).filteredOn(message -> message.loadId().equals(busy)).extracting(ReceivedMessage::messageId)
                .as("the busy load's messages, each once, in the order posted")
                .containsExactlyElementsOf(IntStream.range(2, 21).mapToObj("ping_%02d"::formatted).toList());
        assertThat(received).as("and the other load's").hasSize(20);
    }

    @Test
    void tenMessagesOfOneLoadAreItsRunAtOnceWithoutAnotherCall() {
        LoadQueue queue = queue("busy");
        String busy = newLoadId();
        List<QueueMessage> backlog = pings(busy, 25);
        queue.enqueueAll(backlog);

        List<ReceivedMessage> first = queue.receive(64, 10, Duration.ofSeconds(1));
        int callsForTheFirstRun = count("receiveMessage");
        queue.ackAll(first.stream().map(ReceivedMessage::receiptHandle).toList());
        List<ReceivedMessage> second = queue.receive(64, 10, Duration.ofSeconds(1));

        assertThat(first).extracting(ReceivedMessage::messageId).containsExactlyElementsOf(
                backlog.subList(0, 10).stream().map(QueueMessage::messageId).toList());
        assertThat(callsForTheFirstRun).as("no second call, which could not bring more of the load").isOne();
        assertThat(second).extracting(ReceivedMessage::messageId).as("the next ten once the first are deleted")
                .containsExactlyElementsOf(backlog.subList(10, 20).stream().map(QueueMessage::messageId).toList());
    }

    /**
     * A receive of many loads makes its calls after the first at once: each of the wave's calls
     * waits here until all of them have been made, so calls made one after another would never
     * get past the first of them.
     */
    @Test
    void aReceiveOfManyLoadsMakesItsFurtherCallsAtOnce() {
        CyclicBarrier wave = new CyclicBarrier(SqsFifoLoadQueue.PARALLEL_CALLS);
        AtomicInteger receives = new AtomicInteger();
        SqsClient meeting = intercepting(SQS.client(), method -> {
            if (method.equals("receiveMessage") && receives.incrementAndGet() > 1) {
                wave.await(10, TimeUnit.SECONDS);
            }
        });
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        LoadQueue queue = new SqsFifoLoadQueue(meeting, SQS.createFifoQueue("wave-" + suffix),
                SQS.createFifoQueue("wave-dead-" + suffix), Duration.ofSeconds(30), FakeClock.at(T0), new MemoryUnrunReceives());
        List<String> loads = IntStream.range(0, 1 + SqsFifoLoadQueue.PARALLEL_CALLS).mapToObj(i -> newLoadId()).toList();
        loads.forEach(load -> queue.enqueue(QueueMessage.of(ping(load, "ping_00", T0))));

        List<ReceivedMessage> received = queue.receive(loads.size(), 1, Duration.ofSeconds(1));

        assertThat(received).extracting(ReceivedMessage::loadId).as("a load a call, the first and a wave of four")
                .containsExactlyInAnyOrderElementsOf(loads);
        assertThat(receives).hasValue(loads.size());
    }

    @Test
    void aCallOfAWaveThatFailsGivesBackAtOnceWhatTheOthersBrought() {
        AtomicInteger receives = new AtomicInteger();
        SqsClient failingOnce = intercepting(SQS.client(), method -> {
            if (method.equals("receiveMessage") && receives.incrementAndGet() == 3) {
                throw SdkClientException.create("connection reset");
            }
        });
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        LoadQueue queue = new SqsFifoLoadQueue(failingOnce, SQS.createFifoQueue("failing-" + suffix),
                SQS.createFifoQueue("failing-dead-" + suffix), Duration.ofSeconds(30), FakeClock.at(T0), new MemoryUnrunReceives());
        List<String> loads = IntStream.range(0, 5).mapToObj(i -> newLoadId()).toList();
        loads.forEach(load -> queue.enqueue(QueueMessage.of(ping(load, "ping_00", T0))));

        assertThatThrownBy(() -> queue.receive(loads.size(), 1, Duration.ofSeconds(1))).isInstanceOf(SdkClientException.class);
        List<ReceivedMessage> again = queue.receive(loads.size(), 1, Duration.ZERO);

        assertThat(again).extracting(ReceivedMessage::loadId)
                .as("every load at once, not after the 30 s its messages would have stayed hidden")
                .containsExactlyInAnyOrderElementsOf(loads);
        assertThat(again).extracting(ReceivedMessage::receiveCount).as("the failed receive did not run them").containsOnly(1);
    }

    @Test
    void aBatchCallCarriesAtMostItsBytesLimit() {
        String load = newLoadId();
        List<QueueMessage> large = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            large.add(new QueueMessage(load, "sms_" + i, "{\"text\": \"" + "x".repeat(60 * 1024) + "\"}"));
        }

        List<List<QueueMessage>> calls = SqsFifoLoadQueue.sendChunks(large);

        assertThat(calls).extracting(List::size).containsExactly(4, 4, 2);
        assertThat(calls.stream().flatMap(List::stream).toList()).as("every message, in order").isEqualTo(large);
    }

    /** A log that holds {@code logged} ({@code load/entry}) and counts the questions put to it; it does nothing else. */
    private static EventStore loggedAre(AtomicInteger questions, String... logged) {
        Set<String> held = Set.of(logged);
        return (EventStore) Proxy.newProxyInstance(EventStore.class.getClassLoader(), new Class<?>[]{EventStore.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("contains") || !(args[0] instanceof List<?> loads)) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    questions.incrementAndGet();
                    List<?> ids = (List<?>) args[1];
                    return IntStream.range(0, loads.size()).mapToObj(i -> held.contains(loads.get(i) + "/" + ids.get(i))).toList();
                });
    }

    /** {@code n} pings of {@code load}, ping_00 onward. */
    private static List<QueueMessage> pings(String load, int n) {
        return IntStream.range(0, n).mapToObj(i -> QueueMessage.of(ping(load, "ping_%02d".formatted(i), T0))).toList();
    }

    /** A queue of its own, {@code name} and a random suffix, on the counting client. */
    private LoadQueue queue(String name) {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        return new SqsFifoLoadQueue(counting(SQS.client()), SQS.createFifoQueue(name + "-" + suffix),
                SQS.createFifoQueue(name + "-dead-" + suffix), Duration.ofSeconds(30), FakeClock.at(T0),
                new MemoryUnrunReceives());
    }

    private int count(String method) {
        return calls.getOrDefault(method, new AtomicInteger()).get();
    }

    /** What {@link #intercepting} does before a call, given the method's name. */
    @FunctionalInterface
    private interface Before {
        void run(String method) throws Exception;
    }

    /** The client, doing {@code before} ahead of each call made on it. */
    private static SqsClient intercepting(SqsClient client, Before before) {
        return (SqsClient) Proxy.newProxyInstance(SqsClient.class.getClassLoader(), new Class<?>[]{SqsClient.class},
                (proxy, called, args) -> {
                    before.run(called.getName());
                    try {
                        return called.invoke(client, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** The client, counting the calls made on it by name. */
    private SqsClient counting(SqsClient client) {
        return intercepting(client, method -> calls.computeIfAbsent(method, k -> new AtomicInteger()).incrementAndGet());
    }
}
