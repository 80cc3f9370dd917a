package dev.loadflow.dispatcher.send;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.json.ActionCodec;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;

import java.time.Instant;
import java.util.UUID;

/** A row as a dispatcher holds it at its first claim: what a sender is handed with its action. */
public final class ClaimedRows {

    private static final Instant CLAIMED = Instant.parse("2026-12-01T07:00:00Z");

    private ClaimedRows() {
    }

    /** The row {@code outboxId} (its load the id's first segment) holding {@code action}, claimed once. */
    public static OutboxRow of(String outboxId, Action action) {
        return new OutboxRow(outboxId, outboxId.substring(0, outboxId.indexOf('/')), action.type().wire(),
                action.type().channel(), ActionCodec.encode(action).toString(), OutboxStatus.PENDING, 1, CLAIMED, CLAIMED,
                UUID.randomUUID(), CLAIMED.plusSeconds(90), null, null, null, null, "c-1", null, CLAIMED, null, null);
    }
}
