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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

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
 * nothing behind it is run), so a batch of first deliveries costs no lookup. A held head comes
 * first in its load's run; the messages behind it in the run are given back with it.
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
     * What may run of a received batch, and what is given back after it: per load, a run's
     * messages up to the first that may not run now. The consumer gives back {@code behind}
     * (each the first of its load's messages that were kept from running) once the messages
     * admitted ahead of it are settled.
     */
    public record Screened(List<Admitted> admitted, List<ReceivedMessage> behind) {
    }

    /**
     * Screens a received batch: settles here what must not run (a held head is handed back, a
     * skipped one acked, new poison held or parked) and returns the rest, in order. A load's run
     * stops at the first message that must not run: what the gate settled gives back the rest of
     * the run with it; a later message of the run that is itself poison is not judged behind
     * messages that are about to run (giving it back would free its load under them), but kept
     * from running and returned in {@link Screened#behind}, to be judged when it heads its load.
     */
    public Screened screen(List<ReceivedMessage> received) {
        List<String> redelivered = received.stream().filter(m -> m.receiveCount() > 1).map(ReceivedMessage::loadId).toList();
        Map<String, HeldLoad> holds = redelivered.isEmpty() ? Map.of() : held.among(redelivered);
        List<Admitted> admitted = new ArrayList<>(received.size());
        List<ReceivedMessage> behind = new ArrayList<>();
        Set<String> heads = new HashSet<>();
        Set<String> stopped = new HashSet<>();
        for (ReceivedMessage message : received) {
            if (stopped.contains(message.loadId())) {
                continue;
            }
            if (!heads.add(message.loadId())) {
                Optional<Admitted> next = behindAdmitted(message);
                if (next.isPresent()) {
                    admitted.add(next.get());
                } else {
                    behind.add(message);
                    stopped.add(message.loadId());
                }
                continue;
            }
            if (!screenHead(message, holds.get(message.loadId()), admitted)) {
                stopped.add(message.loadId());
            }
        }
        return new Screened(admitted, behind);
    }

    /** A message behind its run's head: admitted unless it is poison (judged later, when it heads its load). */
    private Optional<Admitted> behindAdmitted(ReceivedMessage message) {
        if (message.receiveCount() > settings.maxDeliveries()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Admitted(message, message.event(), false));
        } catch (RuntimeException unreadable) {
            return Optional.empty();
        }
    }

    /**
     * Screens the first message of a load in the batch (a held head is always one): adds it to
     * {@code admitted} or settles it. False when the rest of its run must not run (the message
     * was handed back or parked, which gives back the rest with it).
     */
    private boolean screenHead(ReceivedMessage message, HeldLoad hold, List<Admitted> admitted) {
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
                return true;
            }
            poison(message, HeldLoad.UNREADABLE, "unreadable message: " + e.getMessage());
            return false;
        }
        if (hold == null) {
            if (message.receiveCount() > settings.maxDeliveries()) {
                poison(message, event.typeName(), "delivered " + message.receiveCount() + " times without success");
                return false;
            }
            admitted.add(new Admitted(message, event, false));
            return true;
        }
        switch (hold.state()) {
            case HELD -> {
                keepHolding(message);
                return false;
            }
            case RETRY -> admitted.add(new Admitted(message, event, true));
            case SKIPPED -> skipped(message, true);
        }
        return true;
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
