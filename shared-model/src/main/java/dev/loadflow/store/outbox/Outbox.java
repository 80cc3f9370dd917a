package dev.loadflow.store.outbox;

import dev.loadflow.model.action.Channel;
import dev.loadflow.store.audit.AuditRecord;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The transactional outbox. Rows are written with the decision ({@code EventStore.append});
 * dispatchers claim them here.
 *
 * <p>Concurrency contract: {@link #pending} claims rows atomically; no row is handed to two
 * callers while a lease holds. Each claimed row carries a fresh claim token and a lease; the
 * marks require that token and fail with {@link StaleClaimException} (changing nothing) once
 * another caller took the row over after the lease ended. A dead (parked) row is never claimed
 * until it is replayed. Calls block; call them from a worker or virtual thread.
 */
public interface Outbox {

    /**
     * Claims up to {@code limit} rows that are due at {@code now} (pending, available, not under
     * a live lease), oldest first. Each gets a fresh claim token and a lease from {@code now};
     * {@code attempts} grows by one, and {@code first_attempt_at} is set on the first claim only.
     */
    List<OutboxRow> pending(int limit, Instant now);

    /**
     * Claims, for each channel of {@code wanted}, up to its number of rows of that channel that are
     * due at {@code now}, oldest first within the channel; as {@link #pending(int, Instant)} in all
     * else. A dispatcher asks each channel for what it can send at once, so rows of a slow channel
     * are never claimed to wait behind its requests, and never hold back another channel's rows.
     */
    List<OutboxRow> pending(Map<Channel, Integer> wanted, Instant now);

    /** Whether {@code claimToken} still holds the row at {@code now}: re-checked right before each send. */
    boolean isClaimHeld(String outboxId, UUID claimToken, Instant now);

    /** Marks the row dispatched with the channel's receipt. */
    void markDispatched(String outboxId, UUID claimToken, String receipt);

    /** One row's part of {@link #markDispatchedAll}. */
    record Dispatched(String outboxId, UUID claimToken, String receipt) {
    }

    /**
     * Marks several rows dispatched; a backend that can does it in one round trip. A row whose
     * claim is stale is left as it is.
     *
     * @return the ids of the rows left unmarked because their claim was stale
     */
    default java.util.Set<String> markDispatchedAll(List<Dispatched> rows) {
        java.util.Set<String> stale = new java.util.HashSet<>();
        for (Dispatched row : rows) {
            try {
                markDispatched(row.outboxId(), row.claimToken(), row.receipt());
            } catch (StaleClaimException e) {
                stale.add(row.outboxId());
            }
        }
        return stale;
    }

    /**
     * Records a failed attempt: with a {@code retryAt}, the row is due again then; with
     * {@code null}, the row is parked (dead) until an operator replays it.
     */
    void markFailed(String outboxId, UUID claimToken, String failure, Instant retryAt);

    /**
     * Records an attempt the provider accepted ({@code receipt}) whose finish failed (its outcome
     * could not be published, or its mark written): the row stays pending, due again at
     * {@code retryAt}, and keeps the receipt, so its next claim finishes it without sending it
     * again. The failure is kept as a failed attempt's.
     */
    void markAccepted(String outboxId, UUID claimToken, String receipt, String failure, Instant retryAt);

    /**
     * The SMS rows to {@code to} created at or after {@code since}, whatever their status: the
     * rows that could own a message a provider has to that number (a reconcile tells its own
     * message from theirs).
     */
    List<OutboxRow> smsTo(String to, Instant since);

    /**
     * Records an attempt whose answer was lost on a channel that keeps no idempotency key (the
     * provider may have the message): as {@link #markFailed} with a {@code retryAt}, and the row
     * keeps {@code unsure_since} (this attempt's time, unless an earlier one set it) until it is
     * dispatched: its next attempts ask the channel what it has before sending again.
     */
    void markUnsure(String outboxId, UUID claimToken, String failure, Instant retryAt);

    /**
     * Parks a row whose attempt's answer was lost on a channel that keeps no idempotency key and
     * cannot be asked: {@code ambiguous} until an operator {@link #resolve resolves} it. The
     * failure is kept as a failed attempt's.
     */
    void markAmbiguous(String outboxId, UUID claimToken, String failure);

    /** Ambiguous rows, the longest waiting first. */
    List<OutboxRow> ambiguous(int limit);

    /** What an operator found an ambiguous row to be. */
    enum Resolution {
        /** The provider has it (the driver got it): dispatched, with the operator's receipt. */
        DELIVERED,
        /** The provider has it not: pending again, due now, with a fresh retry budget. */
        RESEND
    }

    /**
     * Resolves an ambiguous row as {@code as} (with {@code receipt} when delivered) and records
     * {@code audit} in the same transaction. Returns the audit row's id; empty (and no audit row)
     * if the row was not ambiguous.
     */
    Optional<Long> resolve(String outboxId, Resolution as, String receipt, Instant now, AuditRecord audit);

    /**
     * Gives a claimed row back untried (its channel's circuit is open, or its provider asked for a
     * pause): the claim is dropped, the attempt it counted is taken back, and the row is due again at
     * {@code until}. {@code first_attempt_at} stays: the retry budget runs from the first claim,
     * so a channel that stays unavailable never holds a row's escalation past it.
     */
    void defer(String outboxId, UUID claimToken, Instant until);

    /** The {@code created_at} of the oldest pending row, per channel: how far delivery lags. */
    Map<Channel, Instant> oldestPendingByChannel();

    Optional<OutboxRow> find(String outboxId);

    /** Every row of {@code loadId}, oldest first, whatever its status (dispatched rows until they are pruned). */
    List<OutboxRow> forLoad(String loadId);

    /** The row's failed attempts, oldest first. */
    List<OutboxFailure> failures(String outboxId);

    /** Parked rows matching {@code query}, newest dead first. */
    List<OutboxRow> dead(DeadRowQuery query);

    /**
     * Requeues one parked row: pending, due at {@code now}, with a fresh budget (attempts and
     * {@code first_attempt_at} reset) and the same idempotency key, and records {@code audit}
     * in the same transaction. Returns the audit row's id; empty (and no audit row) if the row
     * was not dead.
     */
    Optional<Long> replay(String outboxId, Instant now, AuditRecord audit);

    /**
     * Marks a dead row handled without sending it (an operator took care of it another way),
     * with its alerts, and records {@code audit} in the same transaction: it stays dead and
     * listed, and retention may delete it once its period has passed since. Returns the audit
     * row's id; empty (and no audit row) if the row was not dead or was acknowledged already.
     * A replay acknowledges the row's alerts too; a replayed row that dies again waits for an
     * operator again.
     */
    Optional<Long> acknowledge(String outboxId, Instant now, AuditRecord audit);

    /**
     * Replays those of {@code outboxIds} that are still dead, as {@link #replay(String, Instant,
     * AuditRecord)} does each, recording {@code audit} in the same statement whatever that was
     * (its result says how many were replayed, and the {@code stale} rows the caller left out).
     */
    Replayed replay(List<String> outboxIds, int stale, Instant now, AuditRecord audit);

    /** How many parked rows match the filters of {@code query} (its paging ignored). */
    long countDead(DeadRowQuery query);

    /** What a replay of several rows did: rows replayed, and the id of its audit row. */
    record Replayed(int replayed, long auditId) {
    }

    /** Deletes up to {@code batchSize} rows dispatched before {@code before}; returns how many. */
    int pruneDispatched(Instant before, int batchSize);
}
