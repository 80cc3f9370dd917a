package dev.loadflow.dispatcher.send;

import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.store.outbox.OutboxRow;

import java.util.Optional;

/**
 * Sends the actions of one channel. Every channel is one: SMS, the Hero desk's tasks and Slack,
 * the stage webhooks, and a channel added to loadflow (an {@link dev.loadflow.model.action.ActionKind}
 * names it; its sender is a CDI bean, {@code @ApplicationScoped}, in the dispatcher). The
 * dispatcher guards each the same way (circuit breaker, adaptive concurrency limit, optional
 * rate), retries what it answers {@link SendResult.Retryable} with backoff, and parks what it
 * answers {@link SendResult.Permanent}.
 *
 * <p>A sender is called at least once per row: the row's {@code outboxId} is the idempotency key
 * to hand the receiver ({@link ChannelClients#post} sends it as {@code Idempotency-Key}). A sender
 * whose receiver keeps no such key says so ({@link #dedupes()} false): an attempt whose answer was
 * lost is then looked for at the provider ({@link #reconciler()}) or left to an operator, never
 * sent twice.
 *
 * @param <A> the action it sends: its channel's actions are all of this type
 */
public interface ChannelSender<A extends Action> {

    /** The channel this sender carries: the one its action types name. */
    Channel channel();

    /** The type of the actions it sends. */
    Class<A> actionType();

    /**
     * Sends {@code action}, the action of {@code row}, and tells how it went. {@code http} posts a
     * record as JSON with the row's key and classifies the answer as every channel does.
     */
    SendResult send(OutboxRow row, A action, ChannelClients http);

    /** Whether the receiver keeps the idempotency key, so a second request after a lost answer is safe. */
    default boolean dedupes() {
        return true;
    }

    /** Who can be asked whether it has a row's message after an attempt whose answer was lost; none by default. */
    default Optional<Reconciler> reconciler() {
        return Optional.empty();
    }

    /** Ceiling of its adaptive limit of requests in flight, and requests per second (0: no rate limit). */
    default ChannelGuards.Pace pace() {
        return new ChannelGuards.Pace(64, 0);
    }

    /**
     * {@code action} sent by {@code sender} as the type it takes; an action of another type is
     * refused ({@link SendResult.Permanent}), never cast blindly.
     */
    static <A extends Action> SendResult sendAs(ChannelSender<A> sender, OutboxRow row, Action action, ChannelClients http) {
        if (!sender.actionType().isInstance(action)) {
            return new SendResult.Permanent(sender.getClass().getSimpleName() + " sends " + sender.actionType().getSimpleName()
                    + ", not " + action.getClass().getSimpleName());
        }
        return sender.send(row, sender.actionType().cast(action), http);
    }
}
