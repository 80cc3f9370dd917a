package dev.loadflow.store.pg;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Row;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.regex.Pattern;

/**
 * What the PostgreSQL stores share: blocking on the reactive client, reading errors by
 * SQLSTATE and constraint name (never by message text), and timestamp conversion.
 */
public final class Pg {

    /** SQLSTATE of a unique or primary-key violation. */
    public static final String UNIQUE_VIOLATION = "23505";

    /** How the log's partitions prefix their constraints' names. */
    private static final Pattern LOG_PARTITION = Pattern.compile("^event_log_p\\d+_");

    private Pg() {
    }

    /** How often a waiting statement looks whether its link was given up on. */
    private static final long SLICE_MILLIS = 200;

    /** How many times a pool's link was given up on so far ({@link #linkWentSilent}). */
    private static final AtomicLong SILENCES = new AtomicLong();

    /**
     * Who gives up on a statement that waits too long, and after how long: a statement can wait on
     * one connection that went silent while the pool's others answer (a connection made while the
     * link was silent stays so when the link returns), and no probe of the pool finds that out.
     * Null: statements wait as long as their answer takes.
     */
    private static volatile Watch watch;

    /**
     * @param limitNanos how long a statement may wait for its answer
     * @param giveUp     told when one waited longer, with when it began: makes the pool's connections anew
     *                   (and calls {@link #linkWentSilent}) unless it did so since that statement began
     */
    public record Watch(long limitNanos, LongConsumer giveUp) {
    }

    /** From now on, a statement that waits longer than {@code watch}'s limit is given up on ({@link #unwatch} ends it). */
    public static void watch(Watch watching) {
        watch = watching;
    }

    /** Ends {@code watching}, unless another watch took its place. */
    public static void unwatch(Watch watching) {
        if (watch == watching) {
            watch = null;
        }
    }

    /**
     * Tells the statements waiting now that the link they were sent on went silent (nothing came
     * back for the pool's link timeout; the pool made its connections anew): each fails with a
     * {@link SilentLinkException} instead of waiting for an answer that cannot come.
     */
    public static void linkWentSilent() {
        SILENCES.incrementAndGet();
    }

    /**
     * Waits for {@code future}. The stores' contracts are blocking, so this must not run on a
     * Vert.x event loop, where it would stall the very thread that completes the future. A
     * statement still waiting when its link is given up on ({@link #linkWentSilent}), or waiting
     * longer than the {@link #watch}'s limit, fails with a {@link SilentLinkException}.
     */
    public static <T> T await(Future<T> future) {
        if (Context.isOnEventLoopThread()) {
            throw new IllegalStateException("store calls block: call them from a worker or virtual thread, not an event loop");
        }
        long silences = SILENCES.get();
        long began = System.nanoTime();
        var waiting = future.toCompletionStage().toCompletableFuture();
        try {
            while (true) {
                try {
                    return waiting.get(SLICE_MILLIS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException stillWaiting) {
                    if (SILENCES.get() != silences) {
                        throw new SilentLinkException();
                    }
                    Watch watching = watch;
                    if (watching != null && System.nanoTime() - began > watching.limitNanos()) {
                        watching.giveUp().accept(began);
                        throw new SilentLinkException();
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for PostgreSQL", e);
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(cause.getMessage(), cause);
        }
    }

    /**
     * Whether {@code error} is a unique violation of {@code constraint}. A violation in a
     * partition of the log names the partition's constraint ({@code event_log_p07_pkey} for
     * {@code event_log_pkey}): that counts as the log's.
     */
    public static boolean violates(Throwable error, String constraint) {
        if (!(error instanceof PgException pg) || !UNIQUE_VIOLATION.equals(pg.getSqlState()) || pg.getConstraint() == null) {
            return false;
        }
        return constraint.equals(LOG_PARTITION.matcher(pg.getConstraint()).replaceFirst("event_log_"));
    }

    /** {@code failure} as it is when unchecked, else wrapped: what a call's future failed with, to throw. */
    public static RuntimeException unchecked(Throwable failure) {
        return failure instanceof RuntimeException e ? e : new IllegalStateException(failure.getMessage(), failure);
    }

    public static OffsetDateTime at(Instant instant) {
        return instant == null ? null : OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    public static Instant instant(Row row, String column) {
        OffsetDateTime value = row.getOffsetDateTime(column);
        return value == null ? null : value.toInstant();
    }
}
