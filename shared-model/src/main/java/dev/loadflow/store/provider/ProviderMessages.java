package dev.loadflow.store.provider;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The messages a provider that keeps no idempotency key created for outbox rows (Twilio's
 * {@code MessageSid}), each the receipt of exactly one row. A message is recorded when the
 * provider's answer to a send names it, when its status callback (which names the outbox id the
 * send carried) reports it, and when a reconcile finds it to be the row's. The first row a
 * message is recorded for keeps it: a message never becomes the receipt of a second row.
 */
public interface ProviderMessages {

    /** How a {@link #record} went. */
    enum Recorded {
        /** The message is now the row's. */
        NEW,
        /** The message was the row's already (its status, when given, is updated). */
        ALREADY,
        /** Another row holds the message: nothing changed. */
        HELD_BY_ANOTHER
    }

    /**
     * Records {@code messageId} at {@code provider} as the message of {@code outboxId}, with the
     * provider's {@code status} of it (null when unknown), unless another row holds it.
     */
    Recorded record(String provider, String messageId, String outboxId, String status, Instant at);

    /** The rows holding those of {@code messageIds} that any row holds: message id to outbox id. */
    Map<String, String> holders(String provider, Collection<String> messageIds);

    /** The messages recorded for {@code outboxId}, the first recorded first. */
    List<String> messagesOf(String provider, String outboxId);
}
