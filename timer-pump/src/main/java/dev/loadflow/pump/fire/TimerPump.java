package dev.loadflow.pump.fire;

import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.service.loop.Rest;
import dev.loadflow.service.loop.ServiceLoop;
import dev.loadflow.service.loop.Waiter;
import dev.loadflow.store.pg.WakeupSignal;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.QueueMessage;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.store.timer.TimerStore;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Fires due timers: claim a batch with
 * {@code SKIP LOCKED}, publish {@code TimerFired} with id {@code evt:{timerId}} to the load
 * queue, then mark each fired. A crash between the publish and the mark publishes again once
 * the claim's lease ends; the event store keeps one copy (same event id). Between passes it
 * sleeps until the next {@code fire_at}, or until a NOTIFY says a timer was scheduled that is
 * due before then, never longer than {@code maxSleep}.
 */
public final class TimerPump {

    private static final Logger LOG = Logger.getLogger(TimerPump.class);
    /** When the earliest timer is due but claimed by another pump, look again after this. */
    private static final Duration CLAIMED_ELSEWHERE = Duration.ofMillis(50);

    private final TimerStore timers;
    private final LoadQueue queue;
    private final Clock clock;
    private final int batchSize;
    private final Duration maxSleep;
    private final PumpMetrics metrics;
    private final ServiceLoop loop;

    public TimerPump(TimerStore timers, LoadQueue queue, Clock clock, WakeupSignal wakeup, int batchSize,
                     Duration maxSleep, Duration maxBackoff, PumpMetrics metrics) {
        this.timers = timers;
        this.queue = queue;
        this.clock = clock;
        this.batchSize = batchSize;
        this.maxSleep = maxSleep;
        this.metrics = metrics;
        // a NOTIFY for a timer due after the pump's next look does not wake it
        this.loop = new ServiceLoop("timer-pump", this::pass, Waiter.untilDue(wakeup, clock), clock, maxBackoff);
    }

    /** One pass: fires up to one batch of due timers; returns how many. */
    public int pumpOnce() {
        List<Timer> due = timers.due(clock.instant(), batchSize);
        for (Timer timer : due) {
            Instant now = clock.instant();
            // the firing continues the trace of the send that set the timer
            queue.enqueue(QueueMessage.of(InboundEvent.timerFired(timer.timerId(), timer.fireAt(), now,
                    timer.correlationId()).withTraceparent(timer.traceparent())));
            timers.markFired(timer.timerId(), now);
            metrics.fired(Duration.between(timer.fireAt(), now));
        }
        metrics.passed(clock.instant());
        return due.size();
    }

    /** How long to sleep before the next pass: until the next fire_at, at most {@code maxSleep}. */
    Duration sleepAfterPass() {
        Optional<Instant> next = timers.nextFireAt();
        if (next.isEmpty()) {
            return maxSleep;
        }
        Duration until = Duration.between(clock.instant(), next.get());
        if (until.isNegative() || until.isZero()) {
            return CLAIMED_ELSEWHERE;
        }
        return until.compareTo(maxSleep) < 0 ? until : maxSleep;
    }

    /** A pass of the loop: fire a batch; short of a full one, sleep until the next fire_at or a NOTIFY. */
    private Rest pass() {
        return pumpOnce() < batchSize ? Rest.idle(sleepAfterPass()) : Rest.NONE;
    }

    /** Goes round at once when the database answers again after an outage, not at its backoff's end. */
    public void resumeWhen(java.util.function.BooleanSupplier databaseAnswers) {
        loop.resumeWhen(databaseAnswers);
    }

    public void start() {
        loop.start();
        LOG.infof("pumping timers (batches of %d, sleeping at most %s)", batchSize, maxSleep);
    }

    /** The pump's loop, for its health. */
    public ServiceLoop loop() {
        return loop;
    }

    /** Stops after the pass in progress; a timer claimed but not fired is fired by another pass after its lease. */
    public void stop() {
        loop.stop(Duration.ofSeconds(10));
    }
}
