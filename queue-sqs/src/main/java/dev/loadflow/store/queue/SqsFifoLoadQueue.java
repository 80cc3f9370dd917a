package dev.loadflow.store.queue;

import dev.loadflow.store.eventlog.EventStore;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * {@link LoadQueue} on an SQS FIFO queue: message group id = load id (SQS keeps one group's
 * messages in order and hands out the next only after the one in flight is deleted or
 * visible again), deduplication id = the message id (dropped as a duplicate for 5 minutes;
 * the event store's dedupe covers everything after), visibility timeout per receive, long
 * polling up to 20 s, delete on ack, {@code ChangeMessageVisibility} for release and extend.
 * Parked messages go to a dead-letter FIFO queue with their reason ({@link SqsDeadLetters}).
 *
 * <p>SQS counts every receive ({@code ApproximateReceiveCount}), and a run of several messages
 * of a load is received together: when its head fails, is held or is parked, the messages
 * behind it go back unrun with a count they cannot give back. Those receives are recorded in
 * {@link UnrunReceives} and taken off the count a message is handed out with, as the
 * PostgreSQL queue takes them back in its own rows, so waiting behind a held head never makes
 * a message poison. Only redelivered messages are looked up, and rows are written only when
 * messages go back unrun.
 *
 * <p>Differences from the PostgreSQL queue, stated as capabilities: {@link #enqueue} cannot
 * tell a duplicate (SQS accepts and drops it silently), visibility follows SQS's clock in whole
 * seconds, and {@link #stats} ages the oldest message from what the queue hands out (SQS's
 * API has no such attribute; CloudWatch's {@code ApproximateAgeOfOldestMessage} has it): the
 * oldest message this instance has in flight, or the longest a message waited before this
 * instance received it in the last {@link #WAIT_WINDOW}.
 */
public final class SqsFifoLoadQueue implements LoadQueue, QueueView {

    static final String MESSAGE_ID = "loadflow-message-id";
    static final String REASON = "loadflow-parked-reason";
    static final String PARKED_AT = "loadflow-parked-at";
    static final String RECEIVE_COUNT = "loadflow-receive-count";
    static final String ENQUEUED_AT = "loadflow-enqueued-at";
    private static final int MAX_DEDUPLICATION_ID = 128;
    private static final Duration MAX_LONG_POLL = Duration.ofSeconds(20);
    private static final int MAX_BATCH = 10;
    /**
     * How many {@code ReceiveMessage} calls a receive makes at once after its first, unless told:
     * the AWS SDK's URL-connection client keeps five connections to a host alive, shared with
     * ingest's sends and the acks' deletes, so a wave of four reuses them rather than opening new
     * TLS connections.
     */
    static final int PARALLEL_CALLS = 4;
    /**
     * The most a {@code SendMessageBatch} carries, its bodies and attributes together: SQS's API
     * reference gave 256 KiB and gives 1 MiB now; 256 KiB keeps to both (and to ElasticMQ).
     */
    static final int MAX_BATCH_BYTES = 256 * 1024;
    /** What a message's attributes take besides its message id: their names, types and the enqueue instant. */
    private static final int ATTRIBUTES_BYTES = 128;
    /** How long a received message's wait stands for the queue's age when nothing older is in flight. */
    static final Duration WAIT_WINDOW = Duration.ofMinutes(1);

    private final SqsClient sqs;
    private final String queueUrl;
    private final String deadLetterQueueUrl;
    private final Duration visibilityTimeout;
    private final Clock clock;
    private final UnrunReceives unrun;
    private final int callsAtOnce;
    /** The calls of a receive's waves, each on a virtual thread. */
    private final ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor();
    /** Messages this instance handed out and has not settled: park needs their bodies. */
    private final Map<String, ReceivedMessage> inFlight = new ConcurrentHashMap<>();
    /** For each message in {@link #inFlight}, its newest handle: a redelivery makes the older one stale. */
    private final Map<UnrunReceives.Key, String> handleOfMessage = new ConcurrentHashMap<>();
    /** For each message of a run of several in hand, the run's handles in order: what a release gives back with it. */
    private final Map<String, List<String>> runOf = new ConcurrentHashMap<>();
    /** The handles in flight whose message has unrun receives recorded: forgotten when it leaves the queue. */
    private final Set<String> withUnrun = ConcurrentHashMap.newKeySet();
    /** The longest a message waited in the queue before this instance received it, within {@link #WAIT_WINDOW}. */
    private final AtomicReference<Wait> longestWait = new AtomicReference<>();

    private record Wait(Instant receivedAt, Duration waited) {
    }

    /**
     * @param deadLetterQueueUrl where {@link #park} sends poison: read it through {@link SqsDeadLetters}
     * @param unrun              where the receives of messages given back unrun are kept
     */
    public SqsFifoLoadQueue(SqsClient sqs, String queueUrl, String deadLetterQueueUrl, Duration visibilityTimeout,
                            Clock clock, UnrunReceives unrun) {
        this(sqs, queueUrl, deadLetterQueueUrl, visibilityTimeout, clock, unrun, PARALLEL_CALLS);
    }

    /** @param callsAtOnce how many {@code ReceiveMessage} calls a receive makes at once after its first */
    public SqsFifoLoadQueue(SqsClient sqs, String queueUrl, String deadLetterQueueUrl, Duration visibilityTimeout,
                            Clock clock, UnrunReceives unrun, int callsAtOnce) {
        if (callsAtOnce < 1) {
            throw new IllegalArgumentException("a receive makes at least one call at a time, got " + callsAtOnce);
        }
        if (!queueUrl.endsWith(".fifo") || !deadLetterQueueUrl.endsWith(".fifo")) {
            throw new IllegalArgumentException("SQS FIFO queues end in .fifo: " + queueUrl + ", " + deadLetterQueueUrl);
        }
        this.sqs = sqs;
        this.queueUrl = queueUrl;
        this.deadLetterQueueUrl = deadLetterQueueUrl;
        this.visibilityTimeout = visibilityTimeout;
        this.clock = clock;
        this.unrun = unrun;
        this.callsAtOnce = callsAtOnce;
    }

    /** Always true: SQS accepts a duplicate within its 5-minute window and drops it silently. */
    @Override
    public boolean enqueue(QueueMessage message) {
        sqs.sendMessage(b -> b.queueUrl(queueUrl).messageBody(message.body())
                .messageGroupId(message.loadId())
                .messageDeduplicationId(deduplicationId(message.loadId(), message.messageId()))
                .messageAttributes(attributes(message)));
        return true;
    }

    /**
     * Ingest's batch: one question to the log for the whole batch, then the events it has not
     * logged sent ten a call ({@link #enqueueAll}), rather than a question and a call per event.
     * A repeated id in the batch is sent once. As {@link #enqueue}, a message SQS already had
     * within its deduplication window is {@link Intake#QUEUED} too: SQS drops it silently.
     *
     * @throws MessageRefusedException an entry SQS refused; the entries before it were queued (sent
     *                           again, SQS drops them as duplicates)
     */
    @Override
    public List<Intake> enqueueAllUnlessLogged(List<QueueMessage> messages, EventStore events) {
        List<Boolean> logged = events.contains(messages.stream().map(QueueMessage::loadId).toList(),
                messages.stream().map(QueueMessage::messageId).toList());
        List<Intake> intakes = new ArrayList<>(messages.size());
        List<QueueMessage> unlogged = new ArrayList<>(messages.size());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < messages.size(); i++) {
            QueueMessage message = messages.get(i);
            if (logged.get(i)) {
                intakes.add(Intake.LOGGED);
            } else if (seen.add(deduplicationId(message.loadId(), message.messageId()))) {
                unlogged.add(message);
                intakes.add(Intake.QUEUED);
            } else {
                intakes.add(Intake.ALREADY_QUEUED);
            }
        }
        enqueueAll(unlogged);
        return intakes;
    }

    /**
     * {@code SendMessageBatch}, ten messages a call (SQS's limit). A FIFO queue keeps a batch's
     * order within each message group.
     *
     * @throws MessageRefusedException an entry SQS refused; the entries before it were queued
     */
    @Override
    public void enqueueAll(List<QueueMessage> messages) {
        for (List<QueueMessage> chunk : sendChunks(messages)) {
            List<SendMessageBatchRequestEntry> entries = new ArrayList<>(chunk.size());
            for (int i = 0; i < chunk.size(); i++) {
                QueueMessage message = chunk.get(i);
                entries.add(SendMessageBatchRequestEntry.builder().id(Integer.toString(i)).messageBody(message.body())
                        .messageGroupId(message.loadId())
                        .messageDeduplicationId(deduplicationId(message.loadId(), message.messageId()))
                        .messageAttributes(attributes(message)).build());
            }
            SendMessageBatchResponse response = sqs.sendMessageBatch(b -> b.queueUrl(queueUrl).entries(entries));
            if (!response.failed().isEmpty()) {
                BatchResultErrorEntry failed = response.failed().getFirst();
                throw new MessageRefusedException("SQS refused message " + chunk.get(Integer.parseInt(failed.id())).messageId()
                        + ": " + failed.code() + " " + failed.message());
            }
        }
    }

    /**
     * Receives runs of up to {@code maxLoads} loads. With {@code perLoad} 1, one message per call
     * (SQS FIFO fills a batch from one message group): a single-message receive returns the head
     * of a group with nothing in flight, and the group stays locked until the message is deleted
     * or visible again. Above 1, up to ten per call, which SQS fills with a group's head and the
     * messages behind it, in order; a run keeps up to {@code perLoad} of them. What is not kept
     * (past {@code perLoad} or {@code maxLoads}) is made visible again at once; the group stays
     * locked behind the run in flight, and its receive is recorded as unrun. A redelivered
     * message is handed out with its receive count less its unrun receives. Only the first
     * call long-polls; a call that brings ten messages of one load ends the receive, so a busy
     * load's run does not wait for a call that cannot bring more of it. Otherwise the calls for
     * the other loads go in waves of up to {@code callsAtOnce} at once (SQS hands each call
     * groups no other call holds), until the receive has {@code maxLoads} loads or a call comes
     * back empty.
     */
    @Override
    public List<ReceivedMessage> receive(int maxLoads, int perLoad, Duration wait) {
        if (maxLoads < 1 || perLoad < 1) {
            throw new IllegalArgumentException("receive at least one load and one message per load, got "
                    + maxLoads + " and " + perLoad);
        }
        int waitSeconds = (int) Math.min(Math.max(wait.toSeconds(), 0), MAX_LONG_POLL.toSeconds());
        Map<String, List<ReceivedMessage>> runs = new LinkedHashMap<>();
        List<ReceivedMessage> notKept = new ArrayList<>();
        List<Message> first = receiveCall(perLoad, waitSeconds);
        keep(first, runs, notKept, maxLoads, perLoad);
        // a whole call of one group: a busy load, whose next messages SQS holds back until these are
        // deleted; its run goes at once, not after more calls for other loads (they go to the
        // consumer's other receives meanwhile)
        boolean busyLoad = first.size() == MAX_BATCH && first.stream()
                .map(m -> m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID)).distinct().count() == 1;
        boolean more = !first.isEmpty() && !(busyLoad && perLoad > 1);
        try {
            while (more && runs.size() < maxLoads) {
                // a wave of calls at once, one for each load still wanted (each brings at least one, if any
                // is there), at most callsAtOnce: a call is a round trip, and one after another they would
                // make a receive of many loads last as many round trips
                int calls = Math.min(maxLoads - runs.size(), callsAtOnce);
                for (List<Message> messages : calls == 1 ? List.of(receiveCall(perLoad, 0)) : wave(calls, perLoad)) {
                    keep(messages, runs, notKept, maxLoads, perLoad);
                    more &= !messages.isEmpty();
                }
            }
        } catch (RuntimeException e) {
            // a call failed: what the others brought goes back at once, rather than after its visibility timeout
            runs.values().forEach(notKept::addAll);
            giveBackUnrun(notKept);
            throw e;
        }
        giveBackUnrun(notKept);
        Map<UnrunReceives.Key, Integer> unrunOf = unrun.of(runs.values().stream().flatMap(List::stream)
                .filter(message -> message.receiveCount() > 1).map(SqsFifoLoadQueue::key).toList());
        for (List<ReceivedMessage> run : runs.values()) {
            run.replaceAll(message -> deliveries(message, unrunOf.getOrDefault(key(message), 0)));
            for (ReceivedMessage message : run) {
                // a redelivery makes this instance's older handle of the same message stale
                String stale = handleOfMessage.put(key(message), message.receiptHandle());
                if (stale != null) {
                    inFlight.remove(stale);
                }
                inFlight.put(message.receiptHandle(), message);
                observeWait(message.enqueuedAt());
            }
        }
        List<ReceivedMessage> received = new ArrayList<>();
        for (List<ReceivedMessage> run : runs.values()) {
            List<String> handles = run.stream().map(ReceivedMessage::receiptHandle).toList();
            if (handles.size() > 1) {
                handles.forEach(handle -> runOf.put(handle, handles));
            }
            received.addAll(run);
        }
        return received;
    }

    /** One {@code ReceiveMessage} call: up to ten messages (one with {@code perLoad} 1), long-polling {@code pollSeconds}. */
    private List<Message> receiveCall(int perLoad, int pollSeconds) {
        return sqs.receiveMessage(b -> b.queueUrl(queueUrl)
                .maxNumberOfMessages(perLoad == 1 ? 1 : MAX_BATCH)
                .waitTimeSeconds(pollSeconds)
                .visibilityTimeout((int) visibilityTimeout.toSeconds())
                .messageSystemAttributeNames(MessageSystemAttributeName.MESSAGE_GROUP_ID,
                        MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT, MessageSystemAttributeName.SENT_TIMESTAMP)
                .messageAttributeNames("All")).messages();
    }

    /**
     * {@code calls} calls at once, each on a virtual thread of its own; their answers in the order
     * the calls were made. A call that fails fails the wave once all have answered, and what the
     * others brought goes back at once.
     */
    private List<List<Message>> wave(int calls, int perLoad) {
        List<Future<List<Message>>> answers = new ArrayList<>(calls);
        for (int call = 0; call < calls; call++) {
            answers.add(callers.submit(() -> receiveCall(perLoad, 0)));
        }
        List<List<Message>> wave = new ArrayList<>(calls);
        RuntimeException failed = null;
        for (Future<List<Message>> answer : answers) {
            try {
                wave.add(answer.get());
            } catch (ExecutionException e) {
                failed = e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed = new IllegalStateException("interrupted while receiving from SQS", e);
            }
        }
        if (failed != null) {
            giveBackUnrun(wave.stream().flatMap(List::stream).map(SqsFifoLoadQueue::received).toList());
            throw failed;
        }
        return wave;
    }

    /** Adds {@code messages} to their loads' runs, or to {@code notKept}: past {@code perLoad} of a load, or a load past {@code maxLoads}. */
    private static void keep(List<Message> messages, Map<String, List<ReceivedMessage>> runs, List<ReceivedMessage> notKept,
                             int maxLoads, int perLoad) {
        for (Message m : messages) {
            ReceivedMessage message = received(m);
            List<ReceivedMessage> run = runs.get(message.loadId());
            boolean keep = run == null ? runs.size() < maxLoads : run.size() < perLoad;
            if (keep) {
                runs.computeIfAbsent(message.loadId(), load -> new ArrayList<>()).add(message);
            } else {
                notKept.add(message);
            }
        }
    }

    private static ReceivedMessage received(Message m) {
        return new ReceivedMessage(m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID), attribute(m, MESSAGE_ID),
                m.body(), m.receiptHandle(),
                Integer.parseInt(m.attributes().getOrDefault(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT, "1")),
                Optional.ofNullable(attribute(m, ENQUEUED_AT)).map(Instant::parse).orElseGet(() ->
                        Instant.ofEpochMilli(Long.parseLong(m.attributes().get(MessageSystemAttributeName.SENT_TIMESTAMP)))));
    }

    /** The message with its receive count less {@code unrunReceives} (it is at least 1: this delivery). */
    private ReceivedMessage deliveries(ReceivedMessage message, int unrunReceives) {
        if (unrunReceives == 0) {
            return message;
        }
        withUnrun.add(message.receiptHandle());
        return new ReceivedMessage(message.loadId(), message.messageId(), message.body(), message.receiptHandle(),
                Math.max(1, message.receiveCount() - unrunReceives), message.enqueuedAt());
    }

    private static UnrunReceives.Key key(ReceivedMessage message) {
        return new UnrunReceives.Key(message.loadId(), message.messageId());
    }

    /** Takes a message out of hand: null when the handle is not (or no longer) this instance's newest. */
    private ReceivedMessage takeInFlight(String receiptHandle) {
        ReceivedMessage message = inFlight.remove(receiptHandle);
        if (message != null) {
            handleOfMessage.remove(key(message), receiptHandle);
        }
        return message;
    }

    /**
     * Gives back, visible at once, the messages of {@code receiptHandle}'s run behind it that are
     * still in hand; they did not run, and their receive is recorded so.
     */
    private void giveBackBehind(String receiptHandle) {
        List<String> run = runOf.remove(receiptHandle);
        if (run == null) {
            return;
        }
        List<ReceivedMessage> behind = run.subList(run.indexOf(receiptHandle) + 1, run.size()).stream()
                .map(this::takeInFlight)
                .filter(Objects::nonNull)
                .toList();
        behind.forEach(message -> {
            runOf.remove(message.receiptHandle());
            withUnrun.remove(message.receiptHandle());
        });
        giveBackUnrun(behind);
    }

    /**
     * Makes {@code messages}, received and not run, visible at once, their receive recorded first
     * (whoever receives them next finds the count taken off). Not recorded (the database is away),
     * they go back all the same, counted once more.
     */
    private void giveBackUnrun(List<ReceivedMessage> messages) {
        try {
            unrun.add(messages.stream().map(SqsFifoLoadQueue::key).toList());
        } finally {
            changeVisibilities(messages.stream().map(ReceivedMessage::receiptHandle).toList(), Duration.ZERO);
        }
    }

    /** Forgets the unrun receives of those of {@code settled} (deleted from the queue) that had any. */
    private void forgetUnrun(List<ReceivedMessage> settled) {
        unrun.forget(settled.stream().filter(message -> withUnrun.remove(message.receiptHandle()))
                .map(SqsFifoLoadQueue::key).toList());
    }

    /** {@code ChangeMessageVisibilityBatch}, ten handles a call; a stale handle is passed over. */
    private void changeVisibilities(List<String> receiptHandles, Duration visibility) {
        for (List<String> chunk : chunks(receiptHandles)) {
            List<ChangeMessageVisibilityBatchRequestEntry> entries = new ArrayList<>(chunk.size());
            for (int i = 0; i < chunk.size(); i++) {
                entries.add(ChangeMessageVisibilityBatchRequestEntry.builder().id(Integer.toString(i))
                        .receiptHandle(chunk.get(i)).visibilityTimeout((int) Math.max(0, visibility.toSeconds())).build());
            }
            try {
                sqs.changeMessageVisibilityBatch(b -> b.queueUrl(queueUrl).entries(entries));
            } catch (SdkException e) {
                chunk.forEach(handle -> changeVisibility(handle, visibility));
            }
        }
    }

    @Override
    public boolean ack(String receiptHandle) {
        runOf.remove(receiptHandle);
        ReceivedMessage message = takeInFlight(receiptHandle);
        if (message == null || !deleteQuietly(receiptHandle)) {
            withUnrun.remove(receiptHandle);
            return false;
        }
        forgetUnrun(List.of(message));
        return true;
    }

    /** {@code DeleteMessageBatch}, ten handles a call; a handle SQS refuses (stale) is not counted. */
    @Override
    public int ackAll(List<String> receiptHandles) {
        receiptHandles.forEach(runOf::remove);
        List<ReceivedMessage> known = receiptHandles.stream().map(this::takeInFlight).filter(Objects::nonNull).toList();
        List<ReceivedMessage> deleted = new ArrayList<>(known.size());
        for (List<ReceivedMessage> chunk : chunks(known)) {
            List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>(chunk.size());
            for (int i = 0; i < chunk.size(); i++) {
                entries.add(DeleteMessageBatchRequestEntry.builder().id(Integer.toString(i))
                        .receiptHandle(chunk.get(i).receiptHandle()).build());
            }
            try {
                sqs.deleteMessageBatch(b -> b.queueUrl(queueUrl).entries(entries)).successful()
                        .forEach(done -> deleted.add(chunk.get(Integer.parseInt(done.id()))));
            } catch (SdkException e) {
                for (ReceivedMessage message : chunk) { // the batch as a whole was refused: one by one, as ack does
                    if (deleteQuietly(message.receiptHandle())) {
                        deleted.add(message);
                    }
                }
            }
        }
        forgetUnrun(deleted);
        known.forEach(message -> withUnrun.remove(message.receiptHandle())); // a stale handle's message went on elsewhere
        return deleted.size();
    }

    @Override
    public boolean release(String receiptHandle, Duration delay) {
        if (takeInFlight(receiptHandle) == null) {
            return false;
        }
        withUnrun.remove(receiptHandle); // its row stays: the message comes back
        boolean released = changeVisibility(receiptHandle, delay);
        // visible at once: the group stays locked while the message given back is hidden, and a
        // wake of that message (an operator's retry) must not find its run's rest still hidden
        giveBackBehind(receiptHandle);
        return released;
    }

    /** ChangeMessageVisibility to 0 with the handle of the last delivery (the message is still hidden under it). */
    @Override
    public boolean wake(String loadId, String receiptHandle) {
        return !inFlight.containsKey(receiptHandle) && changeVisibility(receiptHandle, Duration.ZERO);
    }

    @Override
    public boolean extend(String receiptHandle, Duration visibility) {
        return inFlight.containsKey(receiptHandle) && changeVisibility(receiptHandle, visibility);
    }

    @Override
    public boolean park(String receiptHandle, String reason) {
        ReceivedMessage message = takeInFlight(receiptHandle);
        if (message == null) {
            return false;
        }
        giveBackBehind(receiptHandle);
        sqs.sendMessage(b -> b.queueUrl(deadLetterQueueUrl).messageBody(message.body())
                .messageGroupId(message.loadId())
                .messageDeduplicationId(deduplicationId(message.loadId(), message.messageId() + "#" + clock.millis()))
                .messageAttributes(Map.of(MESSAGE_ID, text(message.messageId()), REASON, text(reason),
                        PARKED_AT, text(clock.instant().toString()),
                        RECEIVE_COUNT, text(Integer.toString(message.receiveCount())),
                        ENQUEUED_AT, text(message.enqueuedAt().toString()))));
        try {
            sqs.deleteMessage(b -> b.queueUrl(queueUrl).receiptHandle(receiptHandle));
        } catch (SdkException stale) {
            // redelivered meanwhile: it is parked and will be processed once more; the event store dedupes
        }
        forgetUnrun(List.of(message));
        return true;
    }

    @Override
    public QueueStats stats() {
        Map<QueueAttributeName, String> attributes = sqs.getQueueAttributes(b -> b.queueUrl(queueUrl).attributeNames(
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED)).attributes();
        long depth = attributes.values().stream().mapToLong(Long::parseLong).sum();
        if (depth == 0) {
            return new QueueStats(0, Optional.empty());
        }
        Instant now = clock.instant();
        Optional<Instant> oldestInFlight = inFlight.values().stream().map(ReceivedMessage::enqueuedAt).min(Instant::compareTo);
        Optional<Instant> longestWaited = Optional.ofNullable(longestWait.get())
                .filter(wait -> !wait.receivedAt().isBefore(now.minus(WAIT_WINDOW)))
                .map(wait -> now.minus(wait.waited()));
        return new QueueStats(depth, Stream.of(oldestInFlight, longestWaited).flatMap(Optional::stream).min(Instant::compareTo));
    }

    /** Keeps the longest wait of the window; a wait older than the window gives way to any newer one. */
    private void observeWait(Instant enqueuedAt) {
        Instant now = clock.instant();
        Duration waited = Duration.between(enqueuedAt, now);
        Wait observed = new Wait(now, waited.isNegative() ? Duration.ZERO : waited);
        longestWait.accumulateAndGet(observed, (kept, latest) -> kept == null
                || kept.receivedAt().isBefore(now.minus(WAIT_WINDOW))
                || latest.waited().compareTo(kept.waited()) >= 0 ? latest : kept);
    }

    private boolean changeVisibility(String receiptHandle, Duration visibility) {
        try {
            sqs.changeMessageVisibility(b -> b.queueUrl(queueUrl).receiptHandle(receiptHandle)
                    .visibilityTimeout((int) Math.max(0, visibility.toSeconds())));
            return true;
        } catch (SdkException stale) {
            return false;
        }
    }

    /**
     * The deduplication id: {@code {loadId}/{messageId}} (SQS deduplicates across the whole queue,
     * not per message group, and event ids are unique per load only), or its SHA-256 when that
     * exceeds SQS's 128 characters.
     */
    static String deduplicationId(String loadId, String messageId) {
        String id = loadId + "/" + messageId;
        if (id.length() <= MAX_DEDUPLICATION_ID) {
            return id;
        }
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(id.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private Map<String, MessageAttributeValue> attributes(QueueMessage message) {
        return Map.of(MESSAGE_ID, text(message.messageId()), ENQUEUED_AT, text(clock.instant().toString()));
    }

    private boolean deleteQuietly(String receiptHandle) {
        try {
            sqs.deleteMessage(b -> b.queueUrl(queueUrl).receiptHandle(receiptHandle));
            return true;
        } catch (SdkException stale) {
            return false;
        }
    }

    /**
     * {@code SendMessageBatch}'s calls: ten entries at most, and their bodies and attributes
     * together at most {@link #MAX_BATCH_BYTES} (an ingested event may be 64 KiB).
     */
    static List<List<QueueMessage>> sendChunks(List<QueueMessage> messages) {
        List<List<QueueMessage>> chunks = new ArrayList<>();
        List<QueueMessage> chunk = new ArrayList<>();
        int bytes = 0;
        for (QueueMessage message : messages) {
            // the body, the message id and the enqueue instant with their attributes' names and types
            int size = message.body().getBytes(StandardCharsets.UTF_8).length
                    + message.messageId().getBytes(StandardCharsets.UTF_8).length + ATTRIBUTES_BYTES;
            if (!chunk.isEmpty() && (chunk.size() == MAX_BATCH || bytes + size > MAX_BATCH_BYTES)) {
                chunks.add(chunk);
                chunk = new ArrayList<>();
                bytes = 0;
            }
            chunk.add(message);
            bytes += size;
        }
        if (!chunk.isEmpty()) {
            chunks.add(chunk);
        }
        return chunks;
    }

    /** SQS takes at most ten entries per batch call. */
    private static <T> List<List<T>> chunks(List<T> items) {
        List<List<T>> chunks = new ArrayList<>();
        for (int from = 0; from < items.size(); from += MAX_BATCH) {
            chunks.add(items.subList(from, Math.min(items.size(), from + MAX_BATCH)));
        }
        return chunks;
    }

    static MessageAttributeValue text(String value) {
        return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
    }

    static String attribute(Message m, String name) {
        MessageAttributeValue value = m.messageAttributes().get(name);
        return value == null ? null : value.stringValue();
    }
}
