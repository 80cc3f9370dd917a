package dev.loadflow.worker.consume;

import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.service.loop.Rest;
import dev.loadflow.service.loop.ServiceLoop;
import dev.loadflow.service.loop.Waiter;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.ReceivedMessage;
import dev.loadflow.worker.hold.PoisonGate.Admitted;
import dev.loadflow.worker.hold.PoisonGate;
import dev.loadflow.worker.run.LoadRun;
import dev.loadflow.worker.run.RunOutcome;
import dev.loadflow.worker.run.RunResult;
import dev.loadflow.worker.run.WorkerMetrics;
import io.vertx.sqlclient.Pool;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The load worker's loop: one receiver takes up to a batch of loads whenever fewer than
 * {@code concurrency} batches are running, each load with up to {@code perLoad} of its queued
 * messages in order (the queue hands a load's messages to one consumer at a time, so runs of
 * one load never overlap), and each batch is run on a virtual thread under the run deadline
 * ({@link LoadRun#processAll}: one read and one append for the whole batch). A message is acked
 * only after its run appended (or found the event already processed); otherwise it is given
 * back for redelivery, with backoff, and the load's messages behind it with it. Poison
 * (unreadable, or delivered too often) goes through the {@link PoisonGate}: it holds its load,
 * or is parked.
 *
 * <p>A run that failed because the database is away is no fault of its message, but SQS counts
 * every receive as a delivery and cannot take one back: receiving on through an outage would
 * make each message it hands out poison within {@code max-deliveries}' backoff, and hold its load
 * when the database returns. So after a failure the consumer asks the database
 * ({@link DatabaseProbe}); if it does not answer, receiving stops until it does (the loop backs
 * off between asks), and the messages in hand go back as usual.
 */
public final class QueueConsumer {

    private static final Logger LOG = Logger.getLogger(QueueConsumer.class);
    private static final Duration MAX_BACKOFF = Duration.ofMinutes(1);

    /** Asks the database something it answers at once; throws when it cannot be reached. */
    @FunctionalInterface
    public interface DatabaseProbe {
        void ask();

        /** {@code SELECT 1} through {@code pool}. */
        static DatabaseProbe selectOne(Pool pool) {
            return () -> Pg.await(pool.query("SELECT 1").execute());
        }
    }

    /** The loop's knobs; see {@code WorkerConfig} for each, and {@code LoopConfig} for {@code loopBackoff}. */
    public record Settings(int concurrency, int batchSize, int perLoad, Duration linger, Duration pollWait,
                           Duration runDeadline, Duration retryDelay, Duration loopBackoff) {

        public Settings {
            if (concurrency < 1 || batchSize < 1 || perLoad < 1) {
                throw new IllegalArgumentException("concurrency, batch size and messages per load must be at least 1, got "
                        + concurrency + ", " + batchSize + " and " + perLoad);
            }
        }
    }

    private final LoadQueue queue;
    private final LoadRun run;
    private final PoisonGate gate;
    private final WorkerMetrics metrics;
    private final Settings settings;
    private final DatabaseProbe database;
    private final Semaphore slots;
    private final ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor();
    private final ExecutorService runs = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, ReceivedMessage> inFlight = new ConcurrentHashMap<>();
    private final ServiceLoop loop;
    private volatile boolean stopping;
    /** A run failed and the database did not answer: nothing is received until it does. */
    private volatile boolean databaseAway;

    public QueueConsumer(LoadQueue queue, LoadRun run, PoisonGate gate, WorkerMetrics metrics, Settings settings,
                         DatabaseProbe database, Clock clock) {
        this.queue = queue;
        this.database = database;
        this.run = run;
        this.gate = gate;
        this.metrics = metrics;
        this.settings = settings;
        this.slots = new Semaphore(settings.concurrency());
        // the receive waits for work itself (a long poll): the loop's own waits are its linger and backoff
        this.loop = new ServiceLoop("load-queue-consumer", this::pass, Waiter.timeoutsOnly(), clock,
                settings.loopBackoff());
        // after an outage, receiving resumes once the database answers, not at the end of a long backoff
        loop.resumeWhen(() -> {
            try {
                database.ask();
                return true;
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    public void start() {
        loop.start();
        LOG.infof("consuming the load queue: %d batches at once, up to %d loads each, up to %d messages per load",
                settings.concurrency(), settings.batchSize(), settings.perLoad());
    }

    /** The consumer's loop, for its health. */
    public ServiceLoop loop() {
        return loop;
    }

    /** How many messages are being run right now. */
    public int inFlight() {
        return inFlight.size();
    }

    /** A pass of the loop: with a batch slot free, receive a batch and hand it to a virtual thread. */
    private Rest pass() throws InterruptedException {
        if (databaseAway) {
            database.ask(); // throws while it is away: the loop backs off and asks again
            databaseAway = false;
            LOG.info("the database answers again: receiving the load queue");
        }
        if (!slots.tryAcquire(settings.pollWait().toMillis(), TimeUnit.MILLISECONDS)) {
            return Rest.NONE;
        }
        List<ReceivedMessage> received;
        try {
            received = queue.receive(settings.batchSize(), settings.perLoad(), settings.pollWait());
        } catch (RuntimeException e) {
            slots.release();
            throw e;
        }
        if (received.isEmpty()) {
            slots.release();
        } else {
            metrics.batch(received.size());
            received.forEach(message -> inFlight.put(message.receiptHandle(), message));
            handlers.submit(() -> {
                try {
                    handle(received);
                } finally {
                    received.forEach(message -> inFlight.remove(message.receiptHandle()));
                    slots.release();
                }
            });
        }
        // a short batch: let more loads get work before the next receive (fuller batches)
        long loads = received.stream().map(ReceivedMessage::loadId).distinct().count();
        return loads < settings.batchSize() ? Rest.linger(settings.linger()) : Rest.NONE;
    }

    /** Runs one received batch (a run of messages per load) under the run deadline, then settles each message. */
    private void handle(List<ReceivedMessage> received) {
        try {
            PoisonGate.Screened screened = gate.screen(received);
            List<Admitted> admitted = screened.admitted();
            if (admitted.isEmpty()) {
                screened.behind().forEach(message -> giveBack(message, Duration.ZERO));
                return;
            }
            List<InboundEvent> events = admitted.stream().map(Admitted::event).toList();
            Future<List<RunOutcome>> running = runs.submit(() -> run.processAll(events));
            List<RunOutcome> outcomes;
            try {
                outcomes = running.get(settings.runDeadline().toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                running.cancel(true);
                checkDatabase();
                LOG.warnf("runs for %s passed their deadline of %s: abandoned, messages given back", describe(events),
                        settings.runDeadline());
                List<Admitted> runs = firstOfEachLoad(admitted);
                metrics.abandoned(runs.size());
                runs.forEach(a -> giveBackUnlessHeld(a, "passed the run deadline", settings.retryDelay()));
                return;
            } catch (ExecutionException e) {
                LOG.errorf(e.getCause(), "runs for %s failed", describe(events));
                checkDatabase();
                firstOfEachLoad(admitted).forEach(a -> giveBackUnlessHeld(a, String.valueOf(e.getCause()),
                        stopping ? Duration.ZERO : backoff(a.message().receiveCount())));
                return;
            } catch (InterruptedException e) {
                running.cancel(true);
                firstOfEachLoad(admitted).forEach(a -> giveBack(a.message(), Duration.ZERO));
                Thread.currentThread().interrupt();
                return;
            }
            settle(admitted, outcomes, screened.behind());
        } catch (RuntimeException e) {
            // the queue itself failed: the messages come back when their visibility timeout ends
            LOG.errorf(e, "could not settle messages of loads %s",
                    received.stream().map(ReceivedMessage::loadId).distinct().toList());
            checkDatabase();
        }
    }

    /** After a failure: if the database does not answer, receiving stops until it does. */
    private void checkDatabase() {
        if (databaseAway) {
            return;
        }
        try {
            database.ask();
        } catch (RuntimeException e) {
            databaseAway = true;
            LOG.warnf("the database does not answer (%s): receiving paused until it does; the messages in hand go back", e);
        }
    }

    /** Giving back a load's first message gives back its run: the first admitted message of each load. */
    private static List<Admitted> firstOfEachLoad(List<Admitted> admitted) {
        Set<String> loads = new HashSet<>();
        return admitted.stream().filter(a -> loads.add(a.message().loadId())).toList();
    }

    /**
     * Acks, per load, the messages whose runs are done up to the first that is not (in one call
     * for the batch), then gives that one back, which gives back the load's messages behind it;
     * a load whose admitted messages all ended gives back the message the gate kept from running
     * behind them, if any. Acks go first: a message given back frees its load for another run.
     */
    private void settle(List<Admitted> admitted, List<RunOutcome> outcomes, List<ReceivedMessage> behind) {
        List<String> done = new ArrayList<>(admitted.size());
        Set<String> stopped = new HashSet<>();
        List<Runnable> givenBack = new ArrayList<>();
        boolean asked = false;
        for (int i = 0; i < admitted.size(); i++) {
            Admitted a = admitted.get(i);
            ReceivedMessage message = a.message();
            if (stopped.contains(message.loadId())) {
                continue;
            }
            RunOutcome outcome = outcomes.get(i);
            if (outcome.result().ack()) {
                gate.succeeded(a);
                done.add(message.receiptHandle());
                continue;
            }
            stopped.add(message.loadId());
            if (outcome.result() == RunResult.FAILED) {
                if (!asked) {
                    checkDatabase(); // once a batch: failed by an outage, it pauses the loop before its messages go back
                    asked = true;
                }
                LOG.errorf("run for %s of load %s failed (delivery %d): %s", a.event().eventId(), message.loadId(),
                        message.receiveCount(), outcome.reason());
                givenBack.add(() -> giveBackUnlessHeld(a, outcome.reason(),
                        stopping ? Duration.ZERO : backoff(message.receiveCount())));
            } else if (outcome.result() == RunResult.NOT_RUN) {
                givenBack.add(() -> giveBack(message, Duration.ZERO));
            } else {
                givenBack.add(() -> giveBack(message, settings.retryDelay()));
            }
        }
        for (ReceivedMessage message : behind) {
            if (!stopped.contains(message.loadId())) {
                givenBack.add(() -> giveBack(message, Duration.ZERO));
            }
        }
        if (!done.isEmpty()) {
            int acked;
            try {
                acked = queue.ackAll(done);
            } catch (RuntimeException e) {
                // left alone, the messages would wait out their visibility timeout: ack them one by one
                LOG.warnf("acking %d messages together failed (%s); acking them one by one", done.size(), e.getMessage());
                acked = (int) done.stream().filter(queue::ack).count();
            }
            if (acked < done.size()) {
                LOG.infof("%d of %d messages were redelivered before their ack; the next runs will find them processed",
                        done.size() - acked, done.size());
            }
        }
        givenBack.forEach(Runnable::run);
    }

    /** A failed run: an operator's retry of a held head is held again; any other message comes back after {@code delay}. */
    private void giveBackUnlessHeld(Admitted admitted, String reason, Duration delay) {
        if (!gate.failed(admitted, reason)) {
            giveBack(admitted.message(), delay);
        }
    }

    private static String describe(List<InboundEvent> events) {
        return events.size() == 1
                ? events.getFirst().eventId() + " of load " + events.getFirst().loadId()
                : events.size() + " events (loads " + events.stream().map(InboundEvent::loadId).toList() + ")";
    }

    private void giveBack(ReceivedMessage message, Duration delay) {
        queue.release(message.receiptHandle(), delay);
    }

    /**
     * How long a failed message stays hidden: the retry delay doubled per delivery, up to a minute.
     * While the database is away, at least two poll waits: the receive that may be under way when
     * the loop paused ends before the message is visible again, and does not count it once more.
     */
    private Duration backoff(int receiveCount) {
        Duration delay = min(settings.retryDelay().multipliedBy(1L << Math.min(receiveCount - 1, 16)), MAX_BACKOFF);
        Duration outage = settings.pollWait().multipliedBy(2);
        return databaseAway && delay.compareTo(outage) < 0 ? outage : delay;
    }

    /**
     * Stops taking work, lets in-flight runs finish for up to {@code grace}, then abandons the
     * rest (interrupting them) and gives their messages back at once. Nothing is lost: a
     * message is either acked after its append or back in the queue.
     *
     * @return whether every in-flight run finished within the grace period
     */
    public boolean stop(Duration grace) {
        stopping = true;
        loop.stop(settings.pollWait().plusSeconds(5));
        handlers.shutdown();
        boolean finished = awaitTermination(handlers, grace);
        if (!finished) {
            LOG.warnf("%d runs still in flight after the %s grace period: abandoning them", inFlight.size(), grace);
            runs.shutdownNow();
            awaitTermination(handlers, Duration.ofSeconds(10));
        }
        runs.shutdown();
        return finished;
    }

    private static boolean awaitTermination(ExecutorService executor, Duration timeout) {
        try {
            return executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
