package dev.loadflow.worker.hold;

import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.store.queue.HeldLoad;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.ReceivedMessage;
import dev.loadflow.worker.run.WorkerMetrics;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What happens to a received message before and after its run when it is, or becomes,
 * poison: a message that cannot be read, or is still failing after {@code maxDeliveries}.
 *
 * <p>With {@link OnPoison#HOLD} (the default) poison holds its load: the message stays at the
 * head of its load's queue and is handed back every {@code holdRecheck} without running, so
 * the load's later messages wait while other loads flow (the queue hands out one message per
 * load, oldest first). {@code held_load} says why; an operator asks for a retry (the head runs
 * once more: success ends the hold and the waiting messages follow in order, failure holds it
 * again) or a skip (a {@code MessageSkipped} is logged in its place; the head is acked and the
 * load goes on). With {@link OnPoison#SKIP} poison is parked out of the queue and the load goes
 * on without it.
 *
 * <p>Only a redelivered message can be a held head (a held head is always handed back, and
 * nothing behind it is handed out), so a batch of first deliveries costs no lookup.
 */
public final class PoisonGate {

    private static final Logger LOG = Logger.getLogger(PoisonGate.class);

    /** What poison does to its load ({@code loadflow.worker.on-poison}). */
    public enum OnPoison {
        /** The message stays at its load's head and the load waits for an operator. */
        HOLD,
        /** The message is parked out of the queue and the load goes on without it. */
        SKIP
    }

    /**
     * @param maxDeliveries deliveries after which a message that still fails is poison
     * @param holdRecheck   how long a held head stays hidden each time it is handed back
     */
    public record Settings(OnPoison onPoison, int maxDeliveries, Duration holdRecheck) {

        public Settings {
            Objects.requireNonNull(onPoison, "onPoison");
            if (maxDeliveries < 1) {
                throw new IllegalArgumentException("max deliveries must be at least 1, got " + maxDeliveries);
            }
            if (holdRecheck.isNegative() || holdRecheck.isZero()) {
                throw new IllegalArgumentException("the hold recheck must be positive, got " + holdRecheck);
            }
        }
    }

    /** A message let through to run; {@code retry}: the held head an operator asked to run once more. */
    public record Admitted(ReceivedMessage message, InboundEvent event, boolean retry) {
    }

    private final LoadQueue queue;
    private final HeldLoads held;
    private final Settings settings;
    private final WorkerMetrics metrics;
    private final Clock clock;

    public PoisonGate(LoadQueue queue, HeldLoads held, Settings settings, WorkerMetrics metrics, Clock clock) {
        this.queue = queue;
        this.held = held;
        this.settings = settings;
        this.metrics = metrics;
        this.clock = clock;
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Screens a received batch: settles here what must not run (a held head is handed back, a
     * skipped one acked, new poison held or parked) and returns the rest, in order.
     */
    public List<Admitted> screen(List<ReceivedMessage> received) {
        List<String> redelivered = received.stream().filter(m -> m.receiveCount() > 1).map(ReceivedMessage::loadId).toList();
        Map<String, HeldLoad> holds = redelivered.isEmpty() ? Map.of() : held.among(redelivered);
        List<Admitted> admitted = new ArrayList<>(received.size());
        for (ReceivedMessage message : received) {
            HeldLoad hold = holds.get(message.loadId());
            if (hold != null && !hold.messageId().equals(message.messageId())) {
                // the head it held is gone (acked before its hold ended): the hold is over
                held.release(hold.loadId(), hold.messageId());
                hold = null;
            }
            InboundEvent event;
            try {
                event = message.event();
            } catch (RuntimeException e) {
                if (hold != null && hold.state() == HeldLoad.State.SKIPPED) {
                    skipped(message, false);
                } else {
                    poison(message, HeldLoad.UNREADABLE, "unreadable message: " + e.getMessage());
                }
                continue;
            }
            if (hold == null) {
                if (message.receiveCount() > settings.maxDeliveries()) {
                    poison(message, event.typeName(), "delivered " + message.receiveCount() + " times without success");
                } else {
                    admitted.add(new Admitted(message, event, false));
                }
                continue;
            }
            switch (hold.state()) {
                case HELD -> keepHolding(message);
                case RETRY -> admitted.add(new Admitted(message, event, true));
                case SKIPPED -> skipped(message, true);
            }
        }
        return admitted;
    }

    /**
     * After an admitted message's run, before its ack: an operator's retry that succeeded ends
     * its hold (first, so a crash before the ack leaves a message whose next run finds it done).
     */
    public void succeeded(Admitted admitted) {
        if (admitted.retry()) {
            held.release(admitted.message().loadId(), admitted.message().messageId());
            LOG.infof("load %s: its held message %s ran on retry; the load goes on", admitted.message().loadId(),
                    admitted.message().messageId());
        }
    }

    /**
     * After an admitted message's run failed: an operator's retry is held again with the new
     * reason and handed back (true); any other message is left to the caller's backoff (false).
     */
    public boolean failed(Admitted admitted, String reason) {
        if (!admitted.retry()) {
            return false;
        }
        ReceivedMessage message = admitted.message();
        held.hold(new HeldLoad(message.loadId(), message.messageId(), admitted.event().typeName(),
                "retry failed: " + reason, clock.instant(), HeldLoad.State.HELD, message.receiptHandle()));
        LOG.errorf("load %s: its held message %s failed again on retry: %s", message.loadId(), message.messageId(), reason);
        hideUntilRecheck(message);
        return true;
    }

    private void poison(ReceivedMessage message, String type, String reason) {
        if (settings.onPoison() == OnPoison.SKIP) {
            if (queue.park(message.receiptHandle(), reason)) {
                metrics.parked();
                LOG.errorf("parked message %s of load %s: %s", message.messageId(), message.loadId(), reason);
            }
            return;
        }
        held.hold(new HeldLoad(message.loadId(), message.messageId(), type, reason, clock.instant(),
                HeldLoad.State.HELD, message.receiptHandle()));
        metrics.held();
        LOG.errorf("load %s held at message %s (%s): %s; its later messages wait for an operator's retry or skip",
                message.loadId(), message.messageId(), type, reason);
        hideUntilRecheck(message);
    }

    private void keepHolding(ReceivedMessage message) {
        held.handedBack(message.loadId(), message.messageId(), message.receiptHandle());
        hideUntilRecheck(message);
    }

    /**
     * Lets go of a held head until its recheck. An operator's retry or skip that came while the
     * head was still in hand (after its hold was written) found nothing to wake; it is woken here
     * instead of waiting for the recheck.
     */
    private void hideUntilRecheck(ReceivedMessage message) {
        queue.release(message.receiptHandle(), settings.holdRecheck());
        held.of(message.loadId())
                .filter(hold -> hold.messageId().equals(message.messageId()) && hold.state() != HeldLoad.State.HELD)
                .ifPresent(repaired -> queue.wake(message.loadId(), message.receiptHandle()));
    }

    /**
     * The skip is logged in the head's place: end the hold and ack the head. A readable head's
     * hold ends first (a crash in between redelivers a message whose run finds it processed); an
     * unreadable one is acked first (it would be held again), and a crash in between leaves a
     * hold whose head is gone, which the load's next redelivered message ends.
     */
    private void skipped(ReceivedMessage message, boolean readable) {
        if (readable) {
            held.release(message.loadId(), message.messageId());
            queue.ack(message.receiptHandle());
        } else {
            queue.ack(message.receiptHandle());
            held.release(message.loadId(), message.messageId());
        }
        LOG.infof("load %s: its held message %s was skipped; the load goes on", message.loadId(), message.messageId());
    }
}
