package dev.loadflow.dispatcher.finish;

import dev.loadflow.dispatcher.DispatcherMetrics.AlertKind;
import dev.loadflow.dispatcher.DispatcherMetrics.Result;
import dev.loadflow.dispatcher.DispatcherMetrics;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.ActionType;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.OutcomeStatus;
import dev.loadflow.service.loop.GroupCommit;
import dev.loadflow.service.security.Credentials;
import dev.loadflow.store.alert.OpsAlerts;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxFailure;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.StaleClaimException;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.QueueMessage;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What happens to a row after its attempt (ADR 0003): publish its {@code ActionOutcome} to the
 * load queue, then mark it dispatched, retried or dead. Delivered rows publish and mark together
 * with the rows delivered at the same time ({@link GroupCommit}): one enqueue and one update for
 * the group, outcomes first.
 *
 * <p>The outcome is published before the mark: a crash between the two leaves the row to be
 * claimed again, re-sent (the channel dedupes on the key) and published again (the event id
 * {@code out:{outboxId}:{status}} is the same, so the log keeps one). Marking first could lose
 * the outcome. A failure after the send (publish or mark) counts as an attempt and backs off; an
 * accepted send keeps its receipt through it ({@link Outbox#markAccepted}) and is never sent again.
 * A row that dies publishes a failed outcome; when it was a Hero-channel, internal or webhook
 * action, the outcome says {@code heroChannel} and an OpsAlert follows the publish: never a
 * Hero task.
 */
public final class Finisher {

    private static final Logger LOG = Logger.getLogger(Finisher.class);

    private final Outbox outbox;
    private final LoadQueue queue;
    private final RetryPolicy retries;
    private final OpsAlerts alerts;
    private final DispatcherMetrics metrics;
    private final Clock clock;
    private final Predicate<Channel> reconcilable;
    private final GroupCommit<Delivered, Finish> finishing = new GroupCommit<>(this::writeDelivered, 100);

    public Finisher(Outbox outbox, LoadQueue queue, RetryPolicy retries, OpsAlerts alerts, DispatcherMetrics metrics,
                    Clock clock) {
        this(outbox, queue, retries, alerts, metrics, clock, channel -> false);
    }

    /** @param reconcilable whether a channel's provider can be asked what it has (after an attempt whose answer was lost) */
    public Finisher(Outbox outbox, LoadQueue queue, RetryPolicy retries, OpsAlerts alerts, DispatcherMetrics metrics,
                    Clock clock, Predicate<Channel> reconcilable) {
        this.reconcilable = reconcilable;
        this.outbox = outbox;
        this.queue = queue;
        this.retries = retries;
        this.alerts = alerts;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** How long the first wait is before a failed finish is tried again; each wait doubles. */
    static final Duration FINISH_PAUSE = Duration.ofMillis(200);

    /** The most tries of one finish (the waits between them add up to about 50 s, within the 90 s lease). */
    static final int FINISH_TRIES = 8;

    /**
     * Finishes {@code row} after an attempt that came to {@code result}; a lost claim drops the
     * mark. A finish that fails (the database did not take the mark, the queue the outcome) is
     * tried again, waiting {@link #FINISH_PAUSE} and twice as long each time, up to
     * {@link #FINISH_TRIES} times and for as long as the claim's lease allows: every step of it is idempotent (the outcome's event id, the claim
     * token), so the row still gets the mark its attempt earned (its backoff, its unsure flag)
     * instead of being sent again the moment its lease ends. Past the lease it throws: the row
     * is claimed again then, and {@link dev.loadflow.dispatcher.claim.RowDispatcher} treats an
     * attempt that left no mark as one whose answer was lost.
     */
    public void finish(OutboxRow row, SendResult result) throws InterruptedException {
        Duration pause = FINISH_PAUSE;
        for (int tries = 1; ; tries++) {
            try {
                finishOnce(row, result);
                return;
            } catch (StaleClaimException e) {
                metrics.sent(row.channel(), Result.STALE);
                LOG.warnf("%s was taken over by another dispatcher while it was sent (lease %s): its mark is dropped",
                        row.outboxId(), row.claimedUntil());
                return;
            } catch (RuntimeException e) {
                if (tries == FINISH_TRIES || row.claimedUntil() == null
                        || !clock.instant().plus(pause).isBefore(row.claimedUntil())) {
                    throw e;
                }
                LOG.warnf("finishing %s after its %s attempt failed (%s): tried again in %s, within its lease",
                        row.outboxId(), result.getClass().getSimpleName(), e.getMessage(), pause);
                Thread.sleep(pause);
                pause = pause.multipliedBy(2);
            }
        }
    }

    private void finishOnce(OutboxRow row, SendResult result) {
        switch (result) {
            case SendResult.Delivered delivered -> finishDelivered(row, delivered.receipt());
            // a reason is kept, logged, published and shown to viewers: never with a credential in it
            case SendResult.Retryable failed -> retryOrDie(row, Credentials.redact(failed.reason()), failed.retryAfter());
            case SendResult.Permanent refused -> die(row, "permanent: " + Credentials.redact(refused.reason()));
            case SendResult.Unknown lost -> unsure(row, Credentials.redact(lost.reason()));
        }
    }

    /**
     * Gives the row back untried until {@code until} (its channel's circuit is open, its provider
     * asked for a pause, or it had no slot in time), but never past its retry budget: the budget
     * counts from its first claim, tried or not, and neither a deferral nor a trial call restarts
     * it. A row whose budget is spent while its channel is still unavailable dies as any other
     * would: its failed outcome reaches the load within the budget, and the SOP asks a person to act
     * (an SMS that cannot go out: "call the driver") instead of waiting for timers that assume it went.
     */
    public void defer(OutboxRow row, Instant until) {
        Instant budgetEnds = (row.firstAttemptAt() == null ? row.createdAt() : row.firstAttemptAt()).plus(retries.budget());
        if (!clock.instant().isBefore(budgetEnds)) {
            try {
                die(row, "channel " + row.channel().wire() + " unavailable (its circuit open) for the whole retry budget of "
                        + retries.budget() + "; never sent");
            } catch (StaleClaimException e) {
                metrics.sent(row.channel(), Result.STALE);
            }
            return;
        }
        outbox.defer(row.outboxId(), row.claimToken(), until.isAfter(budgetEnds) ? budgetEnds : until);
        metrics.sent(row.channel(), Result.DEFERRED);
    }

    /**
     * Publishes the outcome and marks the row together with the other rows delivered meanwhile
     * (one enqueue and one update for the group). If the group's write fails, the row does
     * both on its own, which also tells a publish failure from a mark failure.
     */
    private void finishDelivered(OutboxRow row, String receipt) {
        Finish finish = finishing.submit(new Delivered(row, outcome(row, OutcomeStatus.DELIVERED, receipt, null), receipt));
        switch (finish) {
            case MARKED -> metrics.sent(row.channel(), Result.DELIVERED);
            case STALE -> throw new StaleClaimException(row.outboxId());
            case ALONE -> {
                if (!publish(row, OutcomeStatus.DELIVERED, receipt, null)) {
                    accepted(row, receipt, "delivered, but its outcome could not be published");
                    return;
                }
                try {
                    outbox.markDispatched(row.outboxId(), row.claimToken(), receipt);
                } catch (StaleClaimException e) {
                    throw e;
                } catch (RuntimeException e) {
                    accepted(row, receipt, "delivered and its outcome published, but the mark failed: " + e.getMessage());
                    return;
                }
                metrics.sent(row.channel(), Result.DELIVERED);
            }
        }
    }

    /**
     * A send the provider accepted whose finish failed: the row keeps its receipt and is due again
     * on the backoff curve, where its next claim finishes it without sending it again. The retry
     * budget does not bind it: it is spent on sends, and this one went out.
     */
    private void accepted(OutboxRow row, String receipt, String said) {
        String reason = Credentials.redact(said);
        Instant now = clock.instant();
        Instant next = retries.nextAttempt(row.attempts(), null, now, Optional.empty()).orElseThrow();
        outbox.markAccepted(row.outboxId(), row.claimToken(), receipt, reason, next);
        metrics.sent(row.channel(), Result.RETRY);
        if (row.firstAttemptAt() != null && !now.isBefore(row.firstAttemptAt().plus(retries.budget()))) {
            raise(row, AlertKind.OUTCOME_UNPUBLISHED, row.actionType() + " " + row.outboxId() + " went out (" + receipt
                    + "), but for the whole retry budget its outcome could not be published or its mark written ("
                    + reason + "): its load has not heard of it yet; it is finished, never sent again, once that works");
        }
    }

    /** A delivered row waiting for its group's write. */
    private record Delivered(OutboxRow row, QueueMessage outcome, String receipt) {
    }

    private enum Finish { MARKED, STALE, ALONE }

    /** One group's write: publish every outcome, then mark every row (ADR 0003's order, for the whole group). */
    private List<Finish> writeDelivered(List<Delivered> group) {
        Set<String> stale;
        try {
            queue.enqueueAll(group.stream().map(Delivered::outcome).toList());
            stale = outbox.markDispatchedAll(group.stream()
                    .map(d -> new Outbox.Dispatched(d.row().outboxId(), d.row().claimToken(), d.receipt())).toList());
        } catch (RuntimeException e) {
            LOG.warnf("finishing %d delivered rows together failed (%s): each finishes on its own", group.size(), e.getMessage());
            return group.stream().map(d -> Finish.ALONE).toList();
        }
        return group.stream().map(d -> stale.contains(d.row().outboxId()) ? Finish.STALE : Finish.MARKED).toList();
    }

    private void retryOrDie(OutboxRow row, String reason, Optional<Duration> retryAfter) {
        Optional<Instant> next = retries.nextAttempt(row.attempts(), row.firstAttemptAt(), clock.instant(), retryAfter);
        if (next.isPresent()) {
            outbox.markFailed(row.outboxId(), row.claimToken(), reason, next.get());
            metrics.sent(row.channel(), Result.RETRY);
        } else {
            die(row, "retry budget of " + retries.budget() + " spent; last: " + reason);
        }
    }

    /**
     * An attempt whose answer was lost on a channel that keeps no idempotency key: never sent again
     * blind. Where the provider can be asked, the row is due again on the retry curve and its next
     * attempt asks first; where it cannot (or the budget is spent), it is parked as ambiguous and
     * on-call is paged: an operator marks it delivered or has it sent again.
     */
    private void unsure(OutboxRow row, String reason) {
        if (reconcilable.test(row.channel())) {
            Optional<Instant> next = retries.nextAttempt(row.attempts(), row.firstAttemptAt(), clock.instant(), Optional.empty());
            if (next.isPresent()) {
                outbox.markUnsure(row.outboxId(), row.claimToken(), reason, next.get());
                metrics.sent(row.channel(), Result.RETRY);
                return;
            }
            reason = "retry budget of " + retries.budget() + " spent; last: " + reason;
        }
        // the load hears first (its SOP asks a person to call), then the row is parked; an outcome that
        // cannot be published leaves the row unsure, and its next attempt parks it again
        if (!publish(row, OutcomeStatus.FAILED, null, reason, true, round(row))) {
            Instant next = retries.nextAttempt(row.attempts(), null, clock.instant(), Optional.empty()).orElseThrow();
            outbox.markUnsure(row.outboxId(), row.claimToken(), reason + " (and its ambiguous outcome could not be published)",
                    next);
            metrics.sent(row.channel(), Result.RETRY);
            return;
        }
        outbox.markAmbiguous(row.outboxId(), row.claimToken(), reason);
        metrics.sent(row.channel(), Result.AMBIGUOUS);
        raise(row, AlertKind.ACTION_AMBIGUOUS, row.actionType() + " " + row.outboxId()
                + " may or may not have reached its provider (" + reason + "): mark it delivered or send it again");
    }

    /** Which of the row's endings this one is: one more than the times it was parked before (dead or ambiguous). */
    private int round(OutboxRow row) {
        return 1 + (int) outbox.failures(row.outboxId()).stream().filter(OutboxFailure::parked).count();
    }

    private void die(OutboxRow row, String reason) {
        if (publish(row, OutcomeStatus.FAILED, null, reason, false, round(row))) {
            bury(row, reason);
            if (alertsOps(row)) {
                raise(row, AlertKind.ACTION_DEAD, row.actionType() + " " + row.outboxId() + " died: " + reason);
            }
        } else {
            retryOrBury(row, reason + " (and its failed outcome could not be published)");
        }
    }

    /**
     * A failure after the send (the outcome could not be published, or the mark failed): counts
     * as an attempt and backs off on the same curve. Past the budget the row is buried, after a
     * failed outcome is published best effort (ADR 0003 accepts the late FAILED next to a
     * DELIVERED this can cause); if even that cannot be published the load never hears of it,
     * and on-call is paged.
     */
    private void retryOrBury(OutboxRow row, String reason) {
        Optional<Instant> next = retries.nextAttempt(row.attempts(), row.firstAttemptAt(), clock.instant(), Optional.empty());
        if (next.isPresent()) {
            outbox.markFailed(row.outboxId(), row.claimToken(), reason, next.get());
            metrics.sent(row.channel(), Result.RETRY);
            return;
        }
        String buried = "retry budget of " + retries.budget() + " spent; last: " + reason;
        boolean told = publish(row, OutcomeStatus.FAILED, null, buried, false, round(row));
        bury(row, buried);
        if (!told) {
            raise(row, AlertKind.OUTCOME_UNPUBLISHED, "the outcome of " + row.outboxId() + " could not be published: " + reason);
        } else if (alertsOps(row)) {
            raise(row, AlertKind.ACTION_DEAD, row.actionType() + " " + row.outboxId() + " died: " + buried);
        }
    }

    private void bury(OutboxRow row, String reason) {
        outbox.markFailed(row.outboxId(), row.claimToken(), reason, null);
        metrics.sent(row.channel(), Result.DEAD);
        metrics.died(row.channel());
    }

    private void raise(OutboxRow row, AlertKind kind, String said) {
        String message = Credentials.redact(said);
        if (alerts.raise(row.loadId(), row.outboxId(), row.actionType(), kind.tag(), message, clock.instant())) {
            metrics.alert(kind);
            LOG.errorf("OPS ALERT [%s] load %s: %s", kind.tag(), row.loadId(), message);
        }
    }

    /** Publishes the row's {@code ActionOutcome} to the load queue; false when the queue could not take it. */
    private boolean publish(OutboxRow row, OutcomeStatus status, String receipt, String failure) {
        return publish(row, status, receipt, failure, false, 1);
    }

    /** As above, for the row's {@code round}-th ending, {@code ambiguous} or not. */
    private boolean publish(OutboxRow row, OutcomeStatus status, String receipt, String failure, boolean ambiguous,
                            int round) {
        try {
            queue.enqueue(outcome(row, status, receipt, failure, ambiguous, round, clock.instant()));
            return true;
        } catch (RuntimeException e) {
            LOG.errorf("could not publish the %s outcome of %s: %s", status.wire(), row.outboxId(), e.getMessage());
            return false;
        }
    }

    private QueueMessage outcome(OutboxRow row, OutcomeStatus status, String receipt, String failure) {
        return outcome(row, status, receipt, failure, clock.instant());
    }

    /** The row's {@code ActionOutcome} as published to its load's queue (an operator's resolution publishes it too). */
    public static QueueMessage outcome(OutboxRow row, OutcomeStatus status, String receipt, String failure, Instant at) {
        return outcome(row, status, receipt, failure, false, 1, at);
    }

    /** As above, for the row's {@code round}-th ending, {@code ambiguous} or not. */
    private static QueueMessage outcome(OutboxRow row, OutcomeStatus status, String receipt, String failure, boolean ambiguous,
                                        int round, Instant at) {
        return QueueMessage.of(InboundEvent.actionOutcome(row.loadId(), new EventPayload.ActionOutcome(
                row.outboxId(), row.actionType(), status, receipt, failure, alertsOps(row), ambiguous, round), at,
                row.correlationId()).withTraceparent(row.traceparent()));
    }

    /** Every action but an SMS pages on-call when it dies, never a Hero (an unreadable row included). */
    private static boolean alertsOps(OutboxRow row) {
        return ActionType.find(row.actionType()).map(ActionType::alertsOpsOnFailure).orElse(true);
    }
}
