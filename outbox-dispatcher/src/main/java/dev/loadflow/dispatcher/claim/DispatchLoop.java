package dev.loadflow.dispatcher.claim;

import dev.loadflow.service.loop.Rest;
import dev.loadflow.service.loop.ServiceLoop;
import dev.loadflow.service.loop.Waiter;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.pg.WakeupSignal;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Claims due rows in batches, never more than it has free senders for (a claim's lease runs
 * from the claim), and dispatches each on a virtual thread. Wakes on {@code NOTIFY
 * loadflow_outbox} when a decision commits rows, and polls every {@code pollInterval} for rows
 * that come due by time (backoff, expired leases). Several instances share the work through
 * {@code SKIP LOCKED}.
 */
public final class DispatchLoop {

    private static final Logger LOG = Logger.getLogger(DispatchLoop.class);

    private final Outbox outbox;
    private final RowDispatcher dispatcher;
    private final Clock clock;
    private final int batchSize;
    private final Duration pollInterval;
    private final Duration linger;
    private final Semaphore senders;
    private final int concurrency;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final ServiceLoop loop;

    /**
     * @param linger after a claim that came back short of a batch, how long to let more rows come
     *               due before the next claim: fewer, fuller claims for a little latency (0: none)
     */
    public DispatchLoop(Outbox outbox, RowDispatcher dispatcher, WakeupSignal wakeup, Clock clock, int batchSize,
                        int concurrency, Duration pollInterval, Duration linger) {
        this.outbox = outbox;
        this.dispatcher = dispatcher;
        this.clock = clock;
        this.batchSize = batchSize;
        this.concurrency = concurrency;
        this.pollInterval = pollInterval;
        this.linger = linger;
        this.senders = new Semaphore(concurrency);
        this.loop = new ServiceLoop("outbox-dispatch-loop", this::pass, Waiter.on(wakeup), clock);
    }

    public void start() {
        loop.start();
        LOG.infof("dispatching the outbox with %d concurrent sends", concurrency);
    }

    /** The dispatcher's loop, for its health. */
    public ServiceLoop loop() {
        return loop;
    }

    /** Claims and dispatches one batch; returns how many rows it claimed. For the loop and for tests. */
    public int dispatchOnce() throws InterruptedException {
        if (!senders.tryAcquire(pollInterval.toMillis(), TimeUnit.MILLISECONDS)) {
            return 0;
        }
        int permits = 1;
        while (permits < batchSize && senders.tryAcquire()) {
            permits++;
        }
        List<OutboxRow> rows;
        Instant claimedAt = clock.instant();
        try {
            rows = outbox.pending(permits, claimedAt);
        } catch (RuntimeException e) {
            senders.release(permits);
            throw e;
        }
        dispatcher.claimed(rows, claimedAt);
        if (rows.size() < permits) {
            senders.release(permits - rows.size());
        } else if (rows.size() > permits) {
            LOG.errorf("a claim of %d rows returned %d: the extra rows are sent without a sender permit", permits, rows.size());
        }
        for (int i = 0; i < rows.size(); i++) {
            OutboxRow row = rows.get(i);
            boolean holdsPermit = i < permits;
            executor.submit(() -> {
                try {
                    dispatcher.dispatch(row);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    // the row stays claimed until its lease ends, then it is due again
                    LOG.errorf(e, "dispatching %s failed; it is retried when its lease ends", row.outboxId());
                } finally {
                    if (holdsPermit) {
                        senders.release();
                    }
                }
            });
        }
        return rows.size();
    }

    /** A pass of the loop: claim and dispatch; nothing claimed, wait for a NOTIFY; short of a batch, linger. */
    private Rest pass() throws InterruptedException {
        int claimed = dispatchOnce();
        Rest rest = claimed == 0 ? Rest.idle(pollInterval) : Rest.NONE;
        return claimed < batchSize ? rest.thenLinger(linger) : rest;
    }

    /** Stops claiming and waits up to {@code grace} for sends in flight (unfinished rows are retried after their lease). */
    public boolean stop(Duration grace) {
        loop.stop(pollInterval.plusSeconds(5));
        executor.shutdown();
        try {
            return executor.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
