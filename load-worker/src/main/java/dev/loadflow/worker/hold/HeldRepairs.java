package dev.loadflow.worker.hold;

import dev.loadflow.model.event.MessageSkipped;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.eventlog.ConcurrencyConflictException;
import dev.loadflow.store.eventlog.DuplicateEntryException;
import dev.loadflow.store.queue.HeldLoad;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.queue.LoadQueue;

import java.time.Clock;
import java.util.Optional;

/**
 * An operator's repairs of a held load: retry its head, or skip it with a reason. Each change
 * and its audit row are one transaction; then the head is made visible at once (through its
 * latest receipt handle), or, if that handle went stale, it comes back at its next recheck.
 */
public final class HeldRepairs {

    /** How a repair ended. */
    public sealed interface Result {
    }

    /** Done: the hold as the change left it, and its audit row. */
    public record Done(HeldLoad held, long auditId) implements Result {
    }

    /** The load is not held. */
    public record NotHeld(String loadId) implements Result {
    }

    /** The load's head is being skipped already; the worker is about to let the load go on. */
    public record BeingSkipped(HeldLoad held) implements Result {
    }

    /** The head was processed (a retry ran it) or the log moved while the skip was written: nothing written. */
    public record Moved(String loadId, String detail) implements Result {
    }

    private final HeldLoads held;
    private final LoadQueue queue;
    private final Clock clock;

    public HeldRepairs(HeldLoads held, LoadQueue queue, Clock clock) {
        this.held = held;
        this.queue = queue;
        this.clock = clock;
    }

    /** Asks for one more run of the load's held head. */
    public Result retry(String loadId, AuditRecord audit) {
        Optional<HeldLoads.Changed> changed = held.retry(loadId, audit);
        if (changed.isEmpty()) {
            return unchanged(loadId);
        }
        wake(changed.get().held());
        return new Done(changed.get().held(), changed.get().auditId());
    }

    /** Logs a {@code MessageSkipped} in the held head's place, so the load goes on without it. */
    public Result skip(String loadId, String reason, AuditRecord audit) {
        Optional<HeldLoad> current = held.of(loadId);
        if (current.isEmpty()) {
            return new NotHeld(loadId);
        }
        HeldLoad hold = current.get();
        if (hold.state() == HeldLoad.State.SKIPPED) {
            return new BeingSkipped(hold);
        }
        MessageSkipped skipped = new MessageSkipped(hold.messageId(), loadId, hold.messageType(), clock.instant(),
                audit.principal(), reason);
        Optional<HeldLoads.Changed> changed;
        try {
            changed = held.skip(skipped, audit);
        } catch (DuplicateEntryException e) {
            return new Moved(loadId, "message " + hold.messageId() + " was processed meanwhile; nothing was skipped");
        } catch (ConcurrencyConflictException e) {
            return new Moved(loadId, "the load's log moved while the skip was written; nothing was skipped, try again");
        }
        if (changed.isEmpty()) {
            return unchanged(loadId);
        }
        wake(changed.get().held());
        return new Done(changed.get().held(), changed.get().auditId());
    }

    private Result unchanged(String loadId) {
        return held.of(loadId).<Result>map(BeingSkipped::new).orElseGet(() -> new NotHeld(loadId));
    }

    private void wake(HeldLoad hold) {
        if (hold.receiptHandle() != null) {
            queue.wake(hold.loadId(), hold.receiptHandle());
        }
    }
}
