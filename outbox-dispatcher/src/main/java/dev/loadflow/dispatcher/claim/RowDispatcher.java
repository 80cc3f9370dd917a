package dev.loadflow.dispatcher.claim;

import dev.loadflow.dispatcher.fanout.Fanout;
import dev.loadflow.dispatcher.internal.InternalActions;
import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.ActionType;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.OutcomeStatus;
import dev.loadflow.store.alert.OpsAlerts;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.StaleClaimException;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.QueueMessage;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One claimed row, end to end (ADR 0003): re-check the claim, send it to its channel (or apply
 * it, if internal) with its idempotency key, publish the outcome, then mark the row. Delivered
 * rows publish and mark together with the rows delivered at the same time ({@link GroupCommit}):
 * one enqueue and one update for the group, outcomes first.
 *
 * <p>The outcome is published before the mark: a crash between the two leaves the row to be
 * claimed again, re-sent (the channel dedupes on the key) and published again (the event id
 * {@code out:{outboxId}:{status}} is the same, so the log keeps one). Marking first could lose
 * the outcome. A failure after the send (publish or mark) counts as an attempt and backs off.
 * A row that dies publishes a failed outcome; when it was a Hero-channel or internal action,
 * the outcome says {@code heroChannel} and an OpsAlert follows the publish: never a Hero task.
 */
public final class RowDispatcher {

    private static final Logger LOG = Logger.getLogger(RowDispatcher.class);

    /** A claim with more lease than this left is not re-checked in the database before its send. */
    static final Duration SURE_LEASE = Duration.ofSeconds(30);

    private final Outbox outbox;
    private final LoadQueue queue;
    private final ChannelClients channels;
    private final InternalActions internal;
    private final Fanout fanout;
    private final ChannelGuards guards;
    private final RetryPolicy retries;
    private final OpsAlerts alerts;
    private final DispatcherMetrics metrics;
    private final Clock clock;
    private final GroupCommit<Delivered, Finish> finishing = new GroupCommit<>(this::writeDelivered, 100);

    public RowDispatcher(Outbox outbox, LoadQueue queue, ChannelClients channels, InternalActions internal, Fanout fanout,
                         ChannelGuards guards, RetryPolicy retries, OpsAlerts alerts, DispatcherMetrics metrics,
                         Clock clock) {
        this.outbox = outbox;
        this.queue = queue;
        this.channels = channels;
        this.internal = internal;
        this.fanout = fanout;
        this.guards = guards;
        this.retries = retries;
        this.alerts = alerts;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * Dispatches one row claimed by {@link Outbox#pending}. The claim is checked in the database
     * only when its lease is near its end: before that, no other dispatcher may take the row
     * (they wait for the lease to end by their clocks, and clocks agree far better than
     * {@link #SURE_LEASE}), so a fresh claim goes straight to its send.
     */
    public void dispatch(OutboxRow row) throws InterruptedException {
        if (!surelyHeld(row) && !outbox.isClaimHeld(row.outboxId(), row.claimToken(), clock.instant())) {
            metrics.sent(row.channel(), "stale");
            LOG.infof("claim on %s lapsed before its send: left to the dispatcher that holds it now", row.outboxId());
            return;
        }
        if (row.attempts() == 1) {
            metrics.firstSendDelay(row.channel(), Duration.between(row.createdAt(), clock.instant()));
        }
        SendResult result;
        if (row.channel().equals("internal")) {
            result = internal.apply(row);
        } else {
            Optional<ChannelGuards.Permit> permit = guards.acquire(row.channel());
            if (permit.isEmpty()) {
                Instant until = clock.instant().plus(guards.openFor());
                outbox.defer(row.outboxId(), row.claimToken(), until);
                metrics.sent(row.channel(), "deferred");
                return;
            }
            long start = System.nanoTime();
            try {
                result = row.channel().equals("fanout") ? fanout.deliver(row) : channels.send(row);
            } catch (RuntimeException e) {
                result = new SendResult.Retryable(e.getClass().getSimpleName() + ": " + e.getMessage(), Optional.empty());
            }
            long took = System.nanoTime() - start;
            switch (result) {
                case SendResult.Retryable failed -> permit.get().failed(took, failed.reason());
                case SendResult.Delivered delivered -> permit.get().succeeded(took);
                case SendResult.Permanent refused -> permit.get().released();
            }
        }
        finish(row, result);
    }

    private boolean surelyHeld(OutboxRow row) {
        return row.claimedUntil() != null
                && Duration.between(clock.instant(), row.claimedUntil()).compareTo(SURE_LEASE) > 0;
    }

    private void finish(OutboxRow row, SendResult result) {
        try {
            switch (result) {
                case SendResult.Delivered delivered -> finishDelivered(row, delivered.receipt());
                case SendResult.Retryable failed -> retryOrDie(row, failed.reason(), failed.retryAfter());
                case SendResult.Permanent refused -> die(row, "permanent: " + refused.reason());
            }
        } catch (StaleClaimException e) {
            metrics.sent(row.channel(), "stale");
            LOG.warnf("%s was taken over by another dispatcher while it was sent (lease %s): its mark is dropped",
                    row.outboxId(), row.claimedUntil());
        }
    }

    /**
     * Publishes the outcome and marks the row together with the other rows delivered meanwhile
     * (one enqueue and one update for the group). If the group's write fails, the row does
     * both on its own, which also tells a publish failure from a mark failure.
     */
    private void finishDelivered(OutboxRow row, String receipt) {
        Finish finish = finishing.submit(new Delivered(row, outcome(row, OutcomeStatus.DELIVERED, receipt, null), receipt));
        switch (finish) {
            case MARKED -> metrics.sent(row.channel(), "delivered");
            case STALE -> throw new StaleClaimException(row.outboxId());
            case ALONE -> {
                if (publish(row, OutcomeStatus.DELIVERED, receipt, null)) {
                    outbox.markDispatched(row.outboxId(), row.claimToken(), receipt);
                    metrics.sent(row.channel(), "delivered");
                } else {
                    retryOrBury(row, "delivered, but its outcome could not be published", Optional.empty());
                }
            }
        }
    }

    /** A delivered row waiting for its group's write; {@code outcome} is null for fan-out rows. */
    private record Delivered(OutboxRow row, QueueMessage outcome, String receipt) {
    }

    private enum Finish { MARKED, STALE, ALONE }

    /** One group's write: publish every outcome, then mark every row (ADR 0003's order, for the whole group). */
    private List<Finish> writeDelivered(List<Delivered> group) {
        Set<String> stale;
        try {
            queue.enqueueAll(group.stream().map(Delivered::outcome).filter(Objects::nonNull).toList());
            stale = outbox.markDispatchedAll(group.stream()
                    .map(d -> new Outbox.Dispatched(d.row().outboxId(), d.row().claimToken(), d.receipt())).toList());
        } catch (RuntimeException e) {
            LOG.warnf("finishing %d delivered rows together failed (%s): each finishes on its own", group.size(), e.getMessage());
            return group.stream().map(d -> Finish.ALONE).toList();
        }
        return group.stream().map(d -> stale.contains(d.row().outboxId()) ? Finish.STALE : Finish.MARKED).toList();
    }

    private void retryOrDie(OutboxRow row, String reason, Optional<Duration> retryAfter) {
        Instant now = clock.instant();
        Optional<Instant> next = retries.nextAttempt(row.attempts(), row.firstAttemptAt(), now, retryAfter);
        if (next.isPresent()) {
            outbox.markFailed(row.outboxId(), row.claimToken(), reason, next.get());
            metrics.sent(row.channel(), "retry");
        } else {
            die(row, "retry budget of " + retries.budget() + " spent; last: " + reason);
        }
    }

    private void die(OutboxRow row, String reason) {
        if (publish(row, OutcomeStatus.FAILED, null, reason)) {
            bury(row, reason);
            if (alertsOps(row)) {
                raise(row, "action_dead", row.actionType() + " " + row.outboxId() + " died: " + reason);
            }
        } else {
            retryOrBury(row, reason + " (and its failed outcome could not be published)", Optional.empty());
        }
    }

    /** A failure after the send: counts as an attempt and backs off; past the budget the row is buried anyway. */
    private void retryOrBury(OutboxRow row, String reason, Optional<Duration> retryAfter) {
        Optional<Instant> next = retries.nextAttempt(row.attempts(), row.firstAttemptAt(), clock.instant(), retryAfter);
        if (next.isPresent()) {
            outbox.markFailed(row.outboxId(), row.claimToken(), reason, next.get());
            metrics.sent(row.channel(), "retry");
            return;
        }
        bury(row, reason);
        raise(row, "outcome_unpublished", "the outcome of " + row.outboxId() + " could not be published: " + reason);
    }

    private void bury(OutboxRow row, String reason) {
        outbox.markFailed(row.outboxId(), row.claimToken(), reason, null);
        metrics.sent(row.channel(), "dead");
        metrics.died(row.channel());
    }

    private void raise(OutboxRow row, String kind, String message) {
        if (alerts.raise(row.loadId(), row.outboxId(), row.actionType(), kind, message, clock.instant())) {
            metrics.alert(kind);
            LOG.errorf("OPS ALERT [%s] load %s: %s", kind, row.loadId(), message);
        }
    }

    /**
     * Publishes the row's {@code ActionOutcome} to the load queue (fan-out rows are events of
     * their own and have no outcome). Returns false when the queue could not take it.
     */
    private boolean publish(OutboxRow row, OutcomeStatus status, String receipt, String failure) {
        QueueMessage outcome = outcome(row, status, receipt, failure);
        if (outcome == null) {
            return true;
        }
        try {
            queue.enqueue(outcome);
            return true;
        } catch (RuntimeException e) {
            LOG.errorf("could not publish the %s outcome of %s: %s", status.wire(), row.outboxId(), e.getMessage());
            return false;
        }
    }

    /** The row's {@code ActionOutcome} as a queue message; null for fan-out rows, which have none. */
    private QueueMessage outcome(OutboxRow row, OutcomeStatus status, String receipt, String failure) {
        if (row.channel().equals("fanout")) {
            return null;
        }
        return QueueMessage.of(InboundEvent.actionOutcome(row.loadId(), new EventPayload.ActionOutcome(
                row.outboxId(), row.actionType(), status, receipt, failure, alertsOps(row)), clock.instant(),
                row.correlationId()));
    }

    /** Hero-channel and internal actions (and fan-out events) page on-call when they die, never a Hero. */
    private static boolean alertsOps(OutboxRow row) {
        return Arrays.stream(ActionType.values())
                .noneMatch(t -> t.wire().equals(row.actionType()) && !t.alertsOpsOnFailure());
    }
}
