package dev.loadflow.dispatcher.claim;

import dev.loadflow.model.action.Channel;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;

/**
 * Claims due rows channel by channel, each channel only up to what it can send at once (its
 * {@code capacity} less the rows of it this instance holds: a claim's lease runs from the claim),
 * and dispatches each row on a virtual thread. So a claimed row never waits behind another
 * channel's requests or behind its own channel's backlog, and internal actions (timers, stages)
 * never wait behind HTTP. A row that finishes frees its place at once: when its channel was full,
 * the loop claims again. Wakes on {@code NOTIFY loadflow_outbox} when a decision commits rows, and
 * polls every {@code pollInterval} for rows that come due by time (backoff, expired leases).
 * Several instances share the work through {@code SKIP LOCKED}.
 */
public final class DispatchLoop {

    private static final Logger LOG = Logger.getLogger(DispatchLoop.class);

    private final Outbox outbox;
    private final RowDispatcher dispatcher;
    private final Clock clock;
    private final int batchSize;
    private final Duration pollInterval;
    private final Duration linger;
    private final ToIntFunction<Channel> capacity;
    private final Map<Channel, AtomicInteger> inHand = new LinkedHashMap<>();
    /** Whether a channel's last claim took all it asked for: due rows of it may still wait for a place. */
    private final Map<Channel, AtomicBoolean> backlogged = new LinkedHashMap<>();
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Waiter waiter;
    private final ServiceLoop loop;

    /**
     * @param capacity how many rows of a channel this instance may hold at once (for an external
     *                 channel its guard's, {@link dev.loadflow.dispatcher.protect.ChannelGuards#capacity})
     * @param batchSize the most rows of one channel a claim takes
     * @param linger   after a claim that found every channel's due rows, how long to let more come
     *                 due before the next claim: fewer, fuller claims for a little latency (0: none)
     * @param maxBackoff the longest rest after a failed claim ({@code loadflow.loop.max-backoff})
     */
    public DispatchLoop(Outbox outbox, RowDispatcher dispatcher, WakeupSignal wakeup, Clock clock, int batchSize,
                        ToIntFunction<Channel> capacity, Duration pollInterval, Duration linger, Duration maxBackoff) {
        this.outbox = outbox;
        this.dispatcher = dispatcher;
        this.clock = clock;
        this.batchSize = batchSize;
        this.capacity = capacity;
        this.pollInterval = pollInterval;
        this.linger = linger;
        for (Channel channel : Channel.values()) {
            inHand.put(channel, new AtomicInteger());
            backlogged.put(channel, new AtomicBoolean());
        }
        this.waiter = Waiter.on(wakeup);
        this.loop = new ServiceLoop("outbox-dispatch-loop", this::pass, waiter, clock, maxBackoff);
    }

    /** Goes round at once when the database answers again after an outage, not at its backoff's end. */
    public void resumeWhen(java.util.function.BooleanSupplier databaseAnswers) {
        loop.resumeWhen(databaseAnswers);
    }

    public void start() {
        loop.start();
        LOG.infof("dispatching the outbox: per channel, as many rows as the channel can send at once");
    }

    /** The dispatcher's loop, for its health. */
    public ServiceLoop loop() {
        return loop;
    }

    /** The rows of {@code channel} this instance holds now (claimed and not yet finished). */
    public int inHand(Channel channel) {
        return inHand.get(channel).get();
    }

    /**
     * Claims each channel's due rows up to its free places and dispatches them; returns whether
     * some channel may have more due rows than it had places for. For the loop and for tests.
     */
    public Claimed dispatchOnce() {
        Map<Channel, Integer> wanted = new LinkedHashMap<>();
        Map<Channel, Integer> free = new LinkedHashMap<>();
        for (Channel channel : Channel.values()) {
            int places = capacity.applyAsInt(channel) - inHand(channel);
            if (places > 0) {
                free.put(channel, places);
                wanted.put(channel, Math.min(places, batchSize));
            }
        }
        if (wanted.isEmpty()) {
            return new Claimed(0, false);
        }
        Instant claimedAt = clock.instant();
        List<OutboxRow> rows = outbox.pending(wanted, claimedAt);
        dispatcher.claimed(rows, claimedAt);
        Map<Channel, Integer> got = new LinkedHashMap<>();
        for (OutboxRow row : rows) {
            got.merge(row.channel(), 1, Integer::sum);
            inHand.get(row.channel()).incrementAndGet();
        }
        wanted.forEach((channel, asked) -> backlogged.get(channel).set(got.getOrDefault(channel, 0) >= asked));
        for (OutboxRow row : rows) {
            executor.submit(() -> dispatch(row));
        }
        // a channel that got a whole batch and still has places: its next rows can be claimed at once (a
        // channel that got all its places claims again when one frees)
        boolean more = wanted.entrySet().stream().anyMatch(e -> got.getOrDefault(e.getKey(), 0) >= e.getValue()
                && e.getValue() < free.get(e.getKey()));
        return new Claimed(rows.size(), more);
    }

    /** What a claim took: how many rows, and whether a channel had more due rows than it asked for. */
    public record Claimed(int rows, boolean more) {
    }

    private void dispatch(OutboxRow row) {
        try {
            dispatcher.dispatch(row);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // the row stays claimed until its lease ends, then it is due again
            LOG.errorf(e, "dispatching %s failed; it is retried when its lease ends", row.outboxId());
        } finally {
            inHand.get(row.channel()).decrementAndGet();
            if (backlogged.get(row.channel()).get()) {
                // its channel took all it asked for: due rows of it may be waiting for the place freed now
                waiter.wake();
            }
        }
    }

    /**
     * A pass of the loop: claim and dispatch. A channel that took a whole batch and has places left:
     * go round at once. Otherwise wait for a NOTIFY, a full channel's freed place or the poll; after
     * a claim that took rows, let more gather for the linger once woken.
     */
    private Rest pass() {
        Claimed claimed = dispatchOnce();
        if (claimed.more()) {
            return Rest.NONE;
        }
        Rest idle = Rest.idle(pollInterval);
        return claimed.rows() > 0 ? idle.thenLinger(linger) : idle;
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
