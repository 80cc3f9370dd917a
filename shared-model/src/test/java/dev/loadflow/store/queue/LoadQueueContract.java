package dev.loadflow.store.queue;

import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.audit.AdminAudit;
import dev.loadflow.store.audit.AuditQuery;
import dev.loadflow.store.audit.AuditRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link LoadQueue} contract: FIFO per load with at most one message in flight per load,
 * parallel across loads, at-least-once with a visibility timeout. The PostgreSQL queue runs it
 * now; the SQS FIFO queue plugs into the same suite.
 */
public abstract class LoadQueueContract {

    protected static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");

    protected final FakeClock clock = FakeClock.at(T0);
    private LoadQueue queue;
    private DeadLetters deadLetters;
    private QueueView view;
    private Duration visibility;

    /** A queue of the backend, in its three roles, over fresh state. */
    protected abstract QueueBackend backend(Clock clock, Duration visibilityTimeout);

    protected abstract void reset();

    /** The audit trail re-drives are recorded in. */
    protected abstract AdminAudit audits();

    /** The visibility timeout the suite runs with: long where time is the injected clock, seconds where it must really pass. */
    protected Duration visibility() {
        return Duration.ofMinutes(5);
    }

    /** Lets {@code duration} pass for the backend's visibility timeouts: the injected clock here; a backend with its own clock also waits. */
    protected void passTime(Duration duration) {
        clock.advance(duration);
    }

    /** Capability: whether {@link LoadQueue#enqueue} can tell that a message was already queued. */
    protected boolean reportsDuplicateEnqueue() {
        return true;
    }

    /** Capability: whether {@link QueueView#stats} knows the age of the oldest message. */
    protected boolean reportsOldestMessageAge() {
        return true;
    }

    @BeforeEach
    final void setUp() {
        reset();
        visibility = visibility();
        QueueBackend backend = backend(clock, visibility);
        queue = backend.queue();
        deadLetters = backend.deadLetters();
        view = backend.view();
    }

    private static QueueMessage message(String load, String id) {
        return new QueueMessage(load, id, "{\"eventId\":\"" + id + "\",\"loadId\":\"" + load + "\"}");
    }

    private static com.fasterxml.jackson.databind.JsonNode json(String text) {
        return dev.loadflow.model.json.JsonReader.parse(text).node();
    }

    private List<ReceivedMessage> receiveNow(int max) {
        return queue.receive(max, Duration.ZERO);
    }

    /** Receives until {@code count} messages are in hand, in up to five calls: a backend may hand out fewer than it has. */
    private List<ReceivedMessage> receiveAtLeast(int count) {
        List<ReceivedMessage> received = new ArrayList<>();
        for (int call = 0; call < 5 && received.size() < count; call++) {
            received.addAll(receiveNow(10));
        }
        return received;
    }

    @Test
    final void aMessageIsReceivedOnceAndLeavesTheQueueWhenAcked() {
        String load = newLoadId();
        assertThat(queue.enqueue(message(load, "ping_0700"))).isTrue();

        List<ReceivedMessage> received = receiveNow(10);

        assertThat(received).singleElement().satisfies(m -> {
            assertThat(m.loadId()).isEqualTo(load);
            assertThat(m.messageId()).isEqualTo("ping_0700");
            assertThat(json(m.body())).isEqualTo(json(message(load, "ping_0700").body()));
            assertThat(m.receiveCount()).isEqualTo(1);
            assertThat(m.enqueuedAt()).isEqualTo(T0);
        });
        assertThat(queue.ack(received.get(0).receiptHandle())).isTrue();
        assertThat(queue.ack(received.get(0).receiptHandle())).isFalse();
        assertThat(view.stats().depth()).isZero();
        assertThat(receiveNow(10)).isEmpty();
    }

    @Test
    final void enqueueIsIdempotentOnTheMessageIdWhileQueued() {
        String load = newLoadId();

        assertThat(queue.enqueue(message(load, "ping_0700"))).isTrue();
        boolean second = queue.enqueue(message(load, "ping_0700"));

        if (reportsDuplicateEnqueue()) {
            assertThat(second).isFalse();
        }
        assertThat(view.stats().depth()).isEqualTo(1);
        assertThat(receiveNow(10)).hasSize(1);
    }

    @Test
    final void aLoadsNextMessageWaitsUntilTheOneInFlightIsAcked() {
        String load = newLoadId();
        queue.enqueue(message(load, "m1"));
        queue.enqueue(message(load, "m2"));
        queue.enqueue(message(load, "m3"));

        List<ReceivedMessage> first = receiveNow(10);
        assertThat(first).extracting(ReceivedMessage::messageId).containsExactly("m1");
        assertThat(receiveNow(10)).as("m2 while m1 is in flight").isEmpty();

        queue.ack(first.get(0).receiptHandle());
        List<ReceivedMessage> second = receiveNow(10);
        assertThat(second).extracting(ReceivedMessage::messageId).containsExactly("m2");
        queue.ack(second.get(0).receiptHandle());
        assertThat(receiveNow(10)).extracting(ReceivedMessage::messageId).containsExactly("m3");
    }

    /** Capability: whether a message given back behind the one released keeps its receive count (not counted as delivered). */
    protected boolean uncountsTheRunBehindARelease() {
        return true;
    }

    @Test
    final void aRunHandsOutALoadsHeadAndTheMessagesRightBehindItInOrder() {
        String busy = newLoadId();
        String other = newLoadId();
        queue.enqueueAll(List.of(message(busy, "m1"), message(busy, "m2"), message(busy, "m3"), message(other, "o1"),
                message(busy, "m4"), message(busy, "m5")));

        List<ReceivedMessage> runs = queue.receive(10, 3, Duration.ZERO);

        assertThat(runs).extracting(ReceivedMessage::messageId).containsExactlyInAnyOrder("m1", "m2", "m3", "o1");
        assertThat(runs).filteredOn(m -> m.loadId().equals(busy)).extracting(ReceivedMessage::messageId)
                .as("in order").containsExactly("m1", "m2", "m3");
        assertThat(queue.receive(10, 3, Duration.ZERO)).as("nothing of a load whose run is in flight").isEmpty();

        List<ReceivedMessage> run = runs.stream().filter(m -> m.loadId().equals(busy)).toList();
        assertThat(queue.ackAll(List.of(run.get(0).receiptHandle(), run.get(1).receiptHandle()))).isEqualTo(2);
        assertThat(queue.receive(10, 3, Duration.ZERO)).as("the run's last message is still in flight").isEmpty();
        assertThat(queue.ack(run.get(2).receiptHandle())).isTrue();
        assertThat(queue.receive(10, 3, Duration.ZERO)).extracting(ReceivedMessage::messageId).containsExactly("m4", "m5");
    }

    /**
     * A run whose third message failed: the first two are acked, the third given back, and the
     * fourth, which never ran, comes back behind it. It is not counted as delivered where the
     * backend can tell, so waiting behind a failing head never makes it poison.
     */
    @Test
    final void aRunGivenBackPartWayComesBackFromTheMessageGivenBack() {
        String load = newLoadId();
        queue.enqueueAll(List.of(message(load, "m1"), message(load, "m2"), message(load, "m3"), message(load, "m4")));
        List<ReceivedMessage> run = queue.receive(10, 4, Duration.ZERO);
        assertThat(run).extracting(ReceivedMessage::messageId).containsExactly("m1", "m2", "m3", "m4");

        queue.ackAll(List.of(run.get(0).receiptHandle(), run.get(1).receiptHandle()));
        assertThat(queue.release(run.get(2).receiptHandle(), Duration.ZERO)).isTrue();

        List<ReceivedMessage> again = new ArrayList<>();
        for (int call = 0; call < 5 && again.size() < 2; call++) {
            for (ReceivedMessage m : queue.receive(10, 4, Duration.ZERO)) {
                again.add(m);
                queue.ack(m.receiptHandle());
            }
        }
        assertThat(again).extracting(ReceivedMessage::messageId).containsExactly("m3", "m4");
        assertThat(again.get(0).receiveCount()).as("m3 ran and failed once").isEqualTo(2);
        if (uncountsTheRunBehindARelease()) {
            assertThat(again.get(1).receiveCount()).as("m4 never ran").isEqualTo(1);
        }
        assertThat(view.stats().depth()).isZero();
    }

    @Test
    final void parkingAMessageOfARunGivesBackTheMessagesBehindIt() {
        String load = newLoadId();
        queue.enqueueAll(List.of(message(load, "m1"), message(load, "poison"), message(load, "m3")));
        List<ReceivedMessage> run = queue.receive(10, 3, Duration.ZERO);
        assertThat(run).extracting(ReceivedMessage::messageId).containsExactly("m1", "poison", "m3");

        assertThat(queue.ack(run.get(0).receiptHandle())).isTrue();
        assertThat(queue.park(run.get(1).receiptHandle(), "unreadable")).isTrue();

        assertThat(deadLetters.parked(10)).extracting(ParkedMessage::messageId).containsExactly("poison");
        assertThat(queue.receive(10, 3, Duration.ZERO)).extracting(ReceivedMessage::messageId).containsExactly("m3");
    }

    @Test
    final void differentLoadsAreHandedOutInParallel() {
        List<String> loads = List.of(newLoadId(), newLoadId(), newLoadId());
        for (String load : loads) {
            queue.enqueue(message(load, "a"));
            queue.enqueue(message(load, "b"));
        }

        List<ReceivedMessage> received = receiveAtLeast(3);

        assertThat(received).extracting(ReceivedMessage::loadId).containsExactlyInAnyOrderElementsOf(loads);
        assertThat(received).extracting(ReceivedMessage::messageId).containsOnly("a");
    }

    @Test
    final void ackAllAcksEveryLiveHandleAndSkipsStaleOnes() {
        List<String> loads = List.of(newLoadId(), newLoadId(), newLoadId());
        for (String load : loads) {
            queue.enqueue(message(load, "a"));
            queue.enqueue(message(load, "b"));
        }
        List<ReceivedMessage> received = receiveAtLeast(3);
        List<String> handles = new ArrayList<>(received.stream().map(ReceivedMessage::receiptHandle).toList());
        queue.ack(handles.get(0));

        int acked = queue.ackAll(handles);

        assertThat(acked).as("the one acked before is stale").isEqualTo(2);
        assertThat(view.stats().depth()).isEqualTo(3);
        List<ReceivedMessage> next = receiveAtLeast(3);
        assertThat(next).extracting(ReceivedMessage::messageId).containsOnly("b");
        assertThat(next).extracting(ReceivedMessage::loadId).containsExactlyInAnyOrderElementsOf(loads);
    }

    @Test
    final void enqueueAllKeepsEachLoadsOrder() {
        String a = newLoadId();
        String b = newLoadId();

        queue.enqueueAll(List.of(message(a, "a1"), message(b, "b1"), message(a, "a2"), message(b, "b2")));

        List<String> order = new ArrayList<>();
        for (int call = 0; call < 20 && order.size() < 4; call++) {
            for (ReceivedMessage m : receiveNow(10)) {
                order.add(m.messageId());
                queue.ack(m.receiptHandle());
            }
        }
        assertThat(order).containsExactlyInAnyOrder("a1", "a2", "b1", "b2");
        assertThat(order.indexOf("a1")).isLessThan(order.indexOf("a2"));
        assertThat(order.indexOf("b1")).isLessThan(order.indexOf("b2"));
    }

    @Test
    final void anUnackedMessageComesBackAfterTheVisibilityTimeoutWithANewHandle() {
        String load = newLoadId();
        queue.enqueue(message(load, "m1"));
        queue.enqueue(message(load, "m2"));
        ReceivedMessage first = receiveNow(10).get(0);

        passTime(visibility.dividedBy(3));
        assertThat(receiveNow(10)).isEmpty();
        passTime(visibility);
        List<ReceivedMessage> again = receiveNow(10);

        assertThat(again).singleElement().satisfies(m -> {
            assertThat(m.messageId()).isEqualTo("m1");
            assertThat(m.receiveCount()).isEqualTo(2);
            assertThat(m.receiptHandle()).isNotEqualTo(first.receiptHandle());
        });
        assertThat(queue.ack(first.receiptHandle())).as("the first delivery's late ack").isFalse();
        assertThat(view.stats().depth()).isEqualTo(2);
        assertThat(queue.ack(again.get(0).receiptHandle())).isTrue();
        assertThat(receiveNow(10)).extracting(ReceivedMessage::messageId).containsExactly("m2");
    }

    @Test
    final void aReleasedMessageComesBackAfterItsDelay() {
        String load = newLoadId();
        queue.enqueue(message(load, "m1"));
        ReceivedMessage first = receiveNow(10).get(0);

        Duration delay = visibility.dividedBy(2);
        assertThat(queue.release(first.receiptHandle(), delay)).isTrue();

        passTime(delay.dividedBy(3));
        assertThat(receiveNow(10)).isEmpty();
        passTime(delay);
        assertThat(receiveNow(10)).extracting(ReceivedMessage::messageId).containsExactly("m1");
        assertThat(queue.ack(first.receiptHandle())).isFalse();
    }

    @Test
    final void extendingTheVisibilityKeepsALongRunsMessageHidden() {
        String load = newLoadId();
        queue.enqueue(message(load, "m1"));
        ReceivedMessage first = receiveNow(10).get(0);
        passTime(visibility.multipliedBy(4).dividedBy(5));

        assertThat(queue.extend(first.receiptHandle(), visibility.multipliedBy(2))).isTrue();

        passTime(visibility);
        assertThat(receiveNow(10)).as("past the first visibility timeout, within the extension").isEmpty();
        assertThat(queue.ack(first.receiptHandle())).isTrue();
        assertThat(queue.extend(first.receiptHandle(), visibility)).isFalse();
        assertThat(queue.release("not-a-handle", Duration.ZERO)).isFalse();
    }

    @Test
    final void aParkedPoisonMessageLeavesTheQueueKeptAndTheLoadGoesOn() {
        String load = newLoadId();
        queue.enqueue(message(load, "poison"));
        queue.enqueue(message(load, "next"));
        ReceivedMessage poison = receiveNow(10).get(0);
        clock.advance(Duration.ofSeconds(3));

        assertThat(queue.park(poison.receiptHandle(), "cannot decode: payload missing")).isTrue();
        assertThat(queue.park(poison.receiptHandle(), "again")).isFalse();

        assertThat(deadLetters.parked(10)).singleElement().satisfies(p -> {
            assertThat(p.loadId()).isEqualTo(load);
            assertThat(p.messageId()).isEqualTo("poison");
            assertThat(json(p.body())).isEqualTo(json(message(load, "poison").body()));
            assertThat(p.receiveCount()).isEqualTo(1);
            assertThat(p.parkedAt()).isEqualTo(T0.plusSeconds(3));
            assertThat(p.reason()).isEqualTo("cannot decode: payload missing");
        });
        assertThat(receiveNow(10)).extracting(ReceivedMessage::messageId).containsExactly("next");
        assertThat(view.stats().depth()).isEqualTo(1);
    }

    @Test
    final void aRedrivenMessageIsDeliveredAgainAndLeavesTheParkedList() {
        String load = newLoadId();
        queue.enqueue(message(load, "poison"));
        queue.park(receiveNow(10).get(0).receiptHandle(), "bad payload");

        AuditRecord redrive = new AuditRecord("otto", "load-worker", "queue.redrive", load + "/poison", "{}");
        assertThat(deadLetters.redrive(load, "no-such-message", redrive)).isEmpty();
        Optional<Long> audited = deadLetters.redrive(load, "poison", redrive);
        assertThat(audited).isPresent();
        assertThat(audits().list(new AuditQuery(null, "otto", 0, 100)))
                .filteredOn(entry -> entry.target().startsWith(load)).singleElement()
                .satisfies(entry -> assertThat(entry.id()).isEqualTo(audited.get()));

        assertThat(deadLetters.parked(10)).extracting(ParkedMessage::messageId).doesNotContain("poison");
        List<ReceivedMessage> again = receiveNow(10);
        assertThat(again).singleElement().satisfies(m -> {
            assertThat(m.messageId()).isEqualTo("poison");
            assertThat(json(m.body())).isEqualTo(json(message(load, "poison").body()));
        });
        assertThat(deadLetters.redrive(load, "poison", redrive)).as("not parked any more").isEmpty();
    }

    @Test
    final void aLongPollReturnsAMessageEnqueuedWhileItWaits() throws Exception {
        String load = newLoadId();
        CompletableFuture<List<ReceivedMessage>> poll =
                CompletableFuture.supplyAsync(() -> queue.receive(1, Duration.ofSeconds(20)));

        queue.enqueue(message(load, "late"));

        assertThat(poll.get(30, TimeUnit.SECONDS)).extracting(ReceivedMessage::messageId).containsExactly("late");
    }

    @Test
    final void statsCountTheQueueAndAgeItsOldestMessage() {
        queue.enqueue(message(newLoadId(), "a"));
        clock.advance(Duration.ofSeconds(30));
        queue.enqueue(message(newLoadId(), "b"));

        QueueStats stats = view.stats();

        assertThat(stats.depth()).isEqualTo(2);
        if (reportsOldestMessageAge()) {
            assertThat(stats.oldestEnqueuedAt()).contains(T0);
        }
    }

    @Test
    final void fourConsumersKeepEachLoadsOrderAndNeverOverlapOnALoad() throws Exception {
        int loads = 20;
        int perLoad = 50;
        List<String> loadIds = new ArrayList<>();
        for (int i = 0; i < loads; i++) {
            loadIds.add(newLoadId());
        }
        for (String messageId : numbered(perLoad)) {
            for (String load : loadIds) {
                queue.enqueue(message(load, messageId));
            }
        }
        Map<String, List<String>> processed = new ConcurrentHashMap<>();
        Set<String> inFlight = ConcurrentHashMap.newKeySet();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger released = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        List<Callable<Void>> consumers = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            Random random = new Random(c);
            consumers.add(() -> {
                while (done.get() < loads * perLoad) {
                    for (ReceivedMessage m : queue.receive(5, Duration.ofMillis(100))) {
                        if (!inFlight.add(m.loadId())) {
                            overlaps.incrementAndGet();
                        }
                        if (random.nextInt(20) == 0) {
                            // a run that fails gives its message back: it must come first again
                            inFlight.remove(m.loadId());
                            released.incrementAndGet();
                            queue.release(m.receiptHandle(), Duration.ZERO);
                            continue;
                        }
                        processed.computeIfAbsent(m.loadId(), k -> Collections.synchronizedList(new ArrayList<>()))
                                .add(m.messageId());
                        inFlight.remove(m.loadId());
                        if (queue.ack(m.receiptHandle())) {
                            done.incrementAndGet();
                        }
                    }
                }
                return null;
            });
        }
        runTogether(consumers);

        assertThat(processed).hasSize(loads);
        assertThat(processed.values()).allSatisfy(order -> assertThat(order).containsExactlyElementsOf(numbered(perLoad)));
        assertThat(overlaps.get()).as("deliveries of a load that already had one in flight").isZero();
        assertThat(released.get()).as("released messages that had to come back first").isPositive();
        assertThat(view.stats().depth()).isZero();
    }

    /** Message ids m000, m001, ... in order. */
    protected static List<String> numbered(int count) {
        List<String> ids = new ArrayList<>(count);
        for (int seq = 0; seq < count; seq++) {
            ids.add(String.format("m%03d", seq));
        }
        return ids;
    }

    /** Runs {@code work} on a thread each, all at once, for at most 5 minutes; rethrows what any of them threw. */
    protected static void runTogether(List<Callable<Void>> work) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(work.size());
        try {
            for (Future<Void> done : threads.invokeAll(work, 5, TimeUnit.MINUTES)) {
                done.get();
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
