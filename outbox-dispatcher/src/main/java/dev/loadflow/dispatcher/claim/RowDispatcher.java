package dev.loadflow.dispatcher.claim;

import dev.loadflow.dispatcher.DispatcherMetrics;
import dev.loadflow.dispatcher.deliver.Delivery;
import dev.loadflow.dispatcher.finish.Finisher;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.json.InvalidJsonException;
import dev.loadflow.service.trace.LogContext;
import dev.loadflow.service.trace.Traces;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.StaleClaimException;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One claimed row, end to end (ADR 0003): re-check the claim, read its action, carry it out
 * ({@link Delivery}: its channel with the idempotency key, or the database), then publish the
 * outcome and mark the row ({@link Finisher}). A row whose payload cannot be read is parked at
 * once with the reason, never sent with fields guessed.
 */
public final class RowDispatcher {

    private static final Logger LOG = Logger.getLogger(RowDispatcher.class);
    private static final AttributeKey<String> OUTBOX_ID = AttributeKey.stringKey("loadflow.outbox_id");
    private static final AttributeKey<String> LOAD_ID = AttributeKey.stringKey("loadflow.load_id");
    private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("loadflow.attempt");

    /** A claim with more lease than this left is not re-checked in the database before its send. */
    static final Duration SURE_LEASE = Duration.ofSeconds(30);

    /**
     * How much of its lease a claim must still have for its request to go out: more than a send's
     * timeout (5 s by default), so that no request outlasts its claim and meets another
     * dispatcher's request for the same row (on a channel that keeps no idempotency key, the
     * driver would get both). A row with less is left to be claimed again when its lease ends. A
     * dispatcher whose lease is shorter than twice this uses half its lease.
     */
    public static final Duration SEND_ROOM = Duration.ofSeconds(10);

    private final Outbox outbox;
    private final Delivery delivery;
    private final Finisher finisher;
    private final DispatcherMetrics metrics;
    private final Clock clock;
    private final Traces traces;
    private final Duration sendRoom;

    /** A dispatcher that records no spans of its own (a row's trace still reaches its channel, outcome and timer). */
    public RowDispatcher(Outbox outbox, Delivery delivery, Finisher finisher, DispatcherMetrics metrics, Clock clock) {
        this(outbox, delivery, finisher, metrics, clock, Traces.NONE);
    }

    /** @param traces where each row's send span goes: a child of the run that decided the row */
    public RowDispatcher(Outbox outbox, Delivery delivery, Finisher finisher, DispatcherMetrics metrics, Clock clock,
                         Traces traces) {
        this(outbox, delivery, finisher, metrics, clock, traces, SEND_ROOM);
    }

    /** @param sendRoom how much of its lease a claim must still have for its request to go out ({@link #SEND_ROOM}) */
    public RowDispatcher(Outbox outbox, Delivery delivery, Finisher finisher, DispatcherMetrics metrics, Clock clock,
                         Traces traces, Duration sendRoom) {
        this.sendRoom = sendRoom;
        this.outbox = outbox;
        this.delivery = delivery;
        this.finisher = finisher;
        this.metrics = metrics;
        this.clock = clock;
        this.traces = traces;
    }

    /**
     * Dispatches one row claimed by {@link Outbox#pending}. The claim is checked in the database
     * only when its lease is near its end: before that, no other dispatcher may take the row
     * (they wait for the lease to end by their clocks, and clocks agree far better than
     * {@link #SURE_LEASE}), so a fresh claim goes straight to its send.
     */
    public void dispatch(OutboxRow claimed) throws InterruptedException {
        Span span = traces.start("loadflow.send " + claimed.actionType(), SpanKind.PRODUCER, claimed.traceparent());
        span.setAttribute(OUTBOX_ID, claimed.outboxId());
        span.setAttribute(LOAD_ID, claimed.loadId());
        span.setAttribute(ATTEMPT, claimed.attempts());
        // from here the row is in its send's span: the channel request, the outcome and a timer continue it
        OutboxRow row = claimed.withTraceparent(Traces.traceparent(span));
        try (Scope scope = span.makeCurrent();
             LogContext logged = LogContext.of(row.loadId(), row.outboxId(), row.correlationId(), span)) {
            dispatchInSpan(row);
        } finally {
            span.end();
        }
    }

    private void dispatchInSpan(OutboxRow claimed) throws InterruptedException {
        if (!surelyHeld(claimed) && !outbox.isClaimHeld(claimed.outboxId(), claimed.claimToken(), clock.instant())) {
            metrics.sent(claimed.channel(), DispatcherMetrics.Result.STALE);
            LOG.infof("claim on %s lapsed before its send: left to the dispatcher that holds it now", claimed.outboxId());
            return;
        }
        if (claimed.attempts() == 1) {
            metrics.firstSendDelay(claimed.channel(), Duration.between(claimed.createdAt(), clock.instant()));
        }
        if (claimed.receipt() != null) {
            // an earlier attempt was accepted and its finish failed: finished now, never sent again
            LOG.infof("%s was accepted by its channel (%s) before: finished without a send", claimed.outboxId(),
                    claimed.receipt());
            finisher.finish(claimed, new SendResult.Delivered(claimed.receipt()));
            return;
        }
        OutboxRow row = askingFirstAfterAnUnmarkedAttempt(claimed);
        Action action;
        try {
            action = row.action();
        } catch (InvalidJsonException e) {
            finisher.finish(row, new SendResult.Permanent("unreadable payload: " + e.getMessage()));
            return;
        }
        // the claim again once the row has its channel's slot: a wait for it may have outlasted the lease, and
        // the request must end (answered or timed out) well before the lease does
        switch (delivery.deliver(row, action, () -> surelyHeld(row)
                || outbox.isClaimHeld(row.outboxId(), row.claimToken(), clock.instant().plus(sendRoom)))) {
            case Delivery.Sent sent -> finisher.finish(row, sent.result());
            case Delivery.CircuitOpen open -> finisher.defer(row, clock.instant().plus(open.openFor()));
            case Delivery.Lapsed lapsed -> {
                metrics.sent(row.channel(), DispatcherMetrics.Result.STALE);
                try {
                    // still ours, but too near its end for a request: given back untried, due again now
                    outbox.defer(row.outboxId(), row.claimToken(), clock.instant());
                    LOG.infof("claim on %s too near its lease's end for a request: given back untried", row.outboxId());
                } catch (StaleClaimException taken) {
                    LOG.infof("claim on %s lapsed while it waited for its channel: left to the dispatcher that holds it now",
                            row.outboxId());
                }
            }
        }
    }

    /**
     * The row as one to look for at its provider before it is sent, when the attempt before this
     * one left no mark (its dispatcher died, or its finish never reached the database) and the
     * channel keeps no idempotency key: that attempt may have reached the provider, and a blind
     * second request could reach the driver twice.
     */
    private OutboxRow askingFirstAfterAnUnmarkedAttempt(OutboxRow row) {
        if (row.unsureSince() != null || row.attempts() <= 1 || delivery.dedupes(row.channel())
                || outbox.failures(row.outboxId()).stream().anyMatch(f -> f.attempt() == row.attempts() - 1)) {
            return row;
        }
        LOG.infof("%s: attempt %d left no mark; its provider is asked before it is sent again", row.outboxId(),
                row.attempts() - 1);
        return row.unsureSince(row.firstAttemptAt() == null ? row.createdAt() : row.firstAttemptAt());
    }

    /** A {@code loadflow.claim} span per row, in the row's trace, from the claim's start until now. */
    public void claimed(List<OutboxRow> rows, Instant claimStartedAt) {
        Instant now = clock.instant();
        for (OutboxRow row : rows) {
            Span span = traces.start("loadflow.claim", SpanKind.INTERNAL, row.traceparent(), claimStartedAt);
            span.setAttribute(OUTBOX_ID, row.outboxId());
            span.setAttribute(ATTEMPT, row.attempts());
            span.end(now);
        }
    }

    private boolean surelyHeld(OutboxRow row) {
        return row.claimedUntil() != null
                && Duration.between(clock.instant(), row.claimedUntil()).compareTo(SURE_LEASE) > 0;
    }
}
