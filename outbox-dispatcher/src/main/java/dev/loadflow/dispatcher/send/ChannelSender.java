package dev.loadflow.dispatcher.send;

import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.store.outbox.OutboxRow;

/**
 * Sends the actions of a channel added to loadflow (an {@link dev.loadflow.model.action.ActionKind}
 * names it). An implementation is a CDI bean ({@code @ApplicationScoped}) in the dispatcher; the
 * dispatcher guards it as it guards its own channels (circuit breaker, adaptive concurrency limit,
 * optional rate), retries what it answers {@link SendResult.Retryable} with backoff, and parks
 * what it answers {@link SendResult.Permanent}.
 *
 * <p>A sender is called at least once per row: the row's {@code outboxId} is the idempotency key
 * to hand the receiver ({@link ChannelClients#post} sends it as {@code Idempotency-Key}). A
 * sender whose receiver keeps no such key says so ({@link #dedupes()} false): an attempt whose
 * answer was lost is then left to an operator instead of sent twice.
 */
public interface ChannelSender {

    /** The channel this sender carries: the one its action kinds' types name. */
    Channel channel();

    /**
     * Sends {@code action}, the action of {@code row}, and tells how it went. {@code http} posts
     * JSON with the row's key and classifies the answer as the built-in channels do.
     */
    SendResult send(OutboxRow row, Action.Extension action, ChannelClients http);

    /** Whether the receiver keeps the idempotency key, so a second request after a lost answer is safe. */
    default boolean dedupes() {
        return true;
    }

    /** Ceiling of its adaptive limit of requests in flight, and requests per second (0: no rate limit). */
    default ChannelGuards.Pace pace() {
        return new ChannelGuards.Pace(64, 0);
    }
}
