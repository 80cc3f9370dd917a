package dev.loadflow.worker.lock;

import java.util.Optional;

/**
 * An optional per-load lease that keeps two runs of one load from both calling the policy
 * (ADR 0003). It only saves wasted policy calls: the version check on append is what keeps
 * the log correct, so a lost lock (a dropped connection) is harmless.
 */
public interface LoadLock {

    /** No locking: every run goes ahead. */
    LoadLock NONE = loadId -> Optional.of(() -> { });

    /** The lease on {@code loadId}, or empty when another run holds it. */
    Optional<Lease> tryLock(String loadId);

    /** A held lock; closing it releases the lock. */
    interface Lease extends AutoCloseable {
        @Override
        void close();
    }
}
