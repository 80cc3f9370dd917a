package dev.loadflow.dispatcher.send;

import dev.loadflow.model.action.Action;
import dev.loadflow.store.outbox.OutboxRow;

/**
 * Asks a provider that keeps no idempotency key what it has of a row's message, before the row
 * is sent again after an attempt whose answer was lost (its {@code unsureSince}): a message it
 * has is the row delivered, with the provider's id as the receipt, and is not sent twice.
 */
public interface Reconciler {

    /** What the provider has of the row's message. */
    sealed interface Found {
    }

    /** The provider has it: the row is delivered, {@code receipt} the provider's id of it. */
    record Has(String receipt) implements Found {
    }

    /** The provider has it not (its list covers the whole time since the first attempt): send it. */
    record HasNot() implements Found {
    }

    /** The provider could not be asked, or its answer does not settle it: ask again at the next attempt. */
    record CannotTell(String reason) implements Found {
    }

    Found find(OutboxRow row, Action action);
}
