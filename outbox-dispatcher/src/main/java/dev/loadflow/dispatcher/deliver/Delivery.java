package dev.loadflow.dispatcher.deliver;

import dev.loadflow.dispatcher.fanout.StageWebhooks;
import dev.loadflow.dispatcher.internal.InternalActions;
import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.ChannelSender;
import dev.loadflow.dispatcher.send.Reconciler;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.store.outbox.OutboxRow;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Carries out a row's action where it belongs: the internal actions in the database, every other
 * through its channel's {@link ChannelSender} (SMS, the Hero desk, Slack, the stage webhooks, a
 * channel added to loadflow) behind the channel's guard (circuit and concurrency limit), by one
 * path. One exhaustive switch: a new built-in action type does not compile until it has a place.
 */
public final class Delivery {

    /** How an attempt went: sent (with its result), or not tried because the channel's circuit is open. */
    public sealed interface Attempt {
    }

    public record Sent(SendResult result) implements Attempt {
    }

    /**
     * Not tried: {@code channel}'s circuit is open (trial calls start after {@code openFor}), or the
     * channel had no slot for it in time (it is given back, due again after {@code openFor}).
     */
    public record CircuitOpen(Channel channel, Duration openFor) implements Attempt {
    }

    /** Not tried: the row's claim lapsed while it waited for its channel's slot; another dispatcher holds it now. */
    public record Lapsed() implements Attempt {
    }

    private final ChannelClients channels;
    private final InternalActions internal;
    private final ChannelGuards guards;
    /** Every external channel's sender: the channels' own and the stage webhooks. */
    private final Map<Channel, ChannelSender<?>> senders;

    public Delivery(ChannelClients channels, InternalActions internal, StageWebhooks webhooks, ChannelGuards guards) {
        this.channels = channels;
        this.internal = internal;
        this.guards = guards;
        Map<Channel, ChannelSender<?>> senders = new HashMap<>(channels.senders());
        senders.put(webhooks.channel(), webhooks);
        this.senders = Map.copyOf(senders);
    }

    /** Whether a second request for a row of {@code channel} is safe after one that may have reached it. */
    public boolean dedupes(Channel channel) {
        ChannelSender<?> sender = senders.get(channel);
        return sender == null || sender.dedupes();
    }

    /**
     * Carries out {@code action}, the action {@code row} holds. A row an earlier attempt left
     * unsure of (its answer lost, on a channel that keeps no idempotency key) is first looked for
     * at the provider: found, it is delivered without a second send; not found, it is sent; when
     * the provider cannot tell, it waits for its next attempt; when the channel cannot be asked,
     * it is left to an operator ({@link SendResult.Unknown}).
     */
    public Attempt deliver(OutboxRow row, Action action) throws InterruptedException {
        return deliver(row, action, () -> true);
    }

    /**
     * As {@link #deliver(OutboxRow, Action)}, asking {@code stillHeld} once the row has its channel's
     * slot, right before the request: a row that waited for its slot past the end of its lease is
     * not sent ({@link Lapsed}), since another dispatcher may have taken it over.
     */
    public Attempt deliver(OutboxRow row, Action action, BooleanSupplier stillHeld) throws InterruptedException {
        if (row.unsureSince() != null) {
            Optional<Reconciler> reconciler = Optional.ofNullable(senders.get(row.channel())).flatMap(ChannelSender::reconciler);
            if (reconciler.isEmpty()) {
                return new Sent(new SendResult.Unknown("an earlier attempt's answer was lost, and "
                        + row.channel().wire() + " cannot be asked whether it has the message"));
            }
            Optional<Attempt> settled = reconcile(row, action, reconciler.get(), stillHeld);
            if (settled.isPresent()) {
                return settled.get();
            }
        }
        return switch (action) {
            case Action.SendSms sms -> sent(row, sms, stillHeld);
            case Action.CreateHeroTask task -> sent(row, task, stillHeld);
            case Action.PostHeroSlack post -> sent(row, post, stillHeld);
            case Action.StageChanged changed -> sent(row, changed, stillHeld);
            case Action.Extension extension -> sent(row, extension, stillHeld);
            case Action.SetTimer set -> new Sent(internal.setTimer(set, row.correlationId(), row.traceparent()));
            case Action.CancelTimer cancel -> new Sent(internal.cancelTimer(cancel));
            case Action.UpdateStage update -> new Sent(internal.updateStage(row.loadId(), row.outboxId(), update));
        };
    }

    /** {@code action} sent by its channel's sender, behind the channel's guard; with no sender here, the row is parked. */
    private Attempt sent(OutboxRow row, Action action, BooleanSupplier stillHeld) throws InterruptedException {
        Channel channel = action.type().channel();
        ChannelSender<?> sender = senders.get(channel);
        if (sender == null) {
            return new Sent(new SendResult.Permanent("no ChannelSender for channel " + channel.wire() + " in this dispatcher"));
        }
        return guarded(channel, stillHeld, () -> ChannelSender.sendAs(sender, row, action, channels));
    }

    /** Asks the provider, through the channel's guard; empty when it has not the message (send it). */
    private Optional<Attempt> reconcile(OutboxRow row, Action action, Reconciler reconciler, BooleanSupplier stillHeld)
            throws InterruptedException {
        Optional<ChannelGuards.Permit> permit = guards.acquire(row.channel());
        if (permit.isEmpty()) {
            return Optional.of(new CircuitOpen(row.channel(), guards.openFor(row.channel())));
        }
        if (!stillHeld.getAsBoolean()) {
            permit.get().released();
            return Optional.of(new Lapsed());
        }
        long start = System.nanoTime();
        Reconciler.Found found;
        try {
            found = reconciler.find(row, action);
        } catch (RuntimeException e) {
            found = new Reconciler.CannotTell(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        long took = System.nanoTime() - start;
        return switch (found) {
            case Reconciler.Has has -> {
                permit.get().succeeded(took);
                yield Optional.of(new Sent(new SendResult.Delivered(has.receipt())));
            }
            case Reconciler.HasNot hasNot -> {
                permit.get().released();
                yield Optional.empty();
            }
            case Reconciler.CannotTell unsure -> {
                permit.get().failed(took, unsure.reason());
                yield Optional.of(new Sent(new SendResult.Unknown("not sent again: " + unsure.reason())));
            }
        };
    }

    /** Sends through {@code channel}'s guard, and tells the guard how it went. */
    private Attempt guarded(Channel channel, BooleanSupplier stillHeld, Supplier<SendResult> send) throws InterruptedException {
        Optional<ChannelGuards.Permit> permit = guards.acquire(channel);
        if (permit.isEmpty()) {
            return new CircuitOpen(channel, guards.openFor(channel));
        }
        if (!stillHeld.getAsBoolean()) {
            permit.get().released();
            return new Lapsed();
        }
        long start = System.nanoTime();
        SendResult result;
        try {
            result = send.get();
        } catch (RuntimeException e) {
            String reason = e.getClass().getSimpleName() + ": " + e.getMessage();
            // thrown while the request was under way: a provider that keeps no key may have taken it
            result = dedupes(channel) ? new SendResult.Retryable(reason, Optional.empty()) : new SendResult.Unknown(reason);
        }
        if (!dedupes(channel) && result instanceof SendResult.Retryable failed && failed.mayHaveArrived()) {
            // a provider that keeps no key may have taken it: asked before a second send, or left to an operator
            result = new SendResult.Unknown(failed.reason());
        }
        long took = System.nanoTime() - start;
        switch (result) {
            case SendResult.Retryable busy when busy.overloaded() -> permit.get().overloaded(took, busy.reason(), busy.retryAfter());
            case SendResult.Retryable failed -> permit.get().failed(took, failed.reason());
            case SendResult.Delivered delivered -> permit.get().succeeded(took);
            case SendResult.Permanent refused -> permit.get().released();
            case SendResult.Unknown lost -> permit.get().failed(took, lost.reason());
        }
        return new Sent(result);
    }
}
