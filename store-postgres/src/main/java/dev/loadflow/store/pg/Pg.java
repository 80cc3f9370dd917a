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

/**
 * What the PostgreSQL stores share: blocking on the reactive client, reading errors by
 * SQLSTATE and constraint name (never by message text), and timestamp conversion.
 */
public final class Pg {

    /** SQLSTATE of a unique or primary-key violation. */
    public static final String UNIQUE_VIOLATION = "23505";

    private Pg() {
    }

    /**
     * Waits for {@code future}. The stores' contracts are blocking, so this must not run on a
     * Vert.x event loop, where it would stall the very thread that completes the future.
     */
    public static <T> T await(Future<T> future) {
        if (Context.isOnEventLoopThread()) {
            throw new IllegalStateException("store calls block: call them from a worker or virtual thread, not an event loop");
        }
        try {
            return future.toCompletionStage().toCompletableFuture().get();
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

    /** Whether {@code error} is a unique violation of {@code constraint}. */
    public static boolean violates(Throwable error, String constraint) {
        return error instanceof PgException pg
                && UNIQUE_VIOLATION.equals(pg.getSqlState())
                && constraint.equals(pg.getConstraint());
    }

    public static OffsetDateTime at(Instant instant) {
        return instant == null ? null : OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    public static Instant instant(Row row, String column) {
        OffsetDateTime value = row.getOffsetDateTime(column);
        return value == null ? null : value.toInstant();
    }
}
