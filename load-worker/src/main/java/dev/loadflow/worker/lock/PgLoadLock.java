package dev.loadflow.worker.lock;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;

import java.util.Optional;
import java.util.concurrent.Semaphore;

/**
 * {@link LoadLock} on a PostgreSQL session advisory lock keyed by the load id. The lock lives
 * on a connection held for the run and is released on close (or when that connection dies).
 * At most {@code maxHeld} locks are held at once (a run waits for a turn before it takes one):
 * a run holding its lock's connection needs another for its reads and its append, so with
 * more holders than half the pool, the holders could take every connection and wait for each
 * other forever.
 */
public final class PgLoadLock implements LoadLock {

    /** Locks held at once by default: the worker's default concurrency. */
    public static final int DEFAULT_MAX_HELD = 8;

    static final String TRY_LOCK = "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked";
    static final String UNLOCK = "SELECT pg_advisory_unlock(hashtextextended($1, 0))";

    private final Pool pool;
    private final Semaphore turns;

    public PgLoadLock(Pool pool) {
        this(pool, DEFAULT_MAX_HELD);
    }

    /** @param maxHeld locks held at once; at most half the pool's connections */
    public PgLoadLock(Pool pool, int maxHeld) {
        if (maxHeld < 1) {
            throw new IllegalArgumentException("at least one lock must be allowed at once, got " + maxHeld);
        }
        this.pool = pool;
        this.turns = new Semaphore(maxHeld, true);
    }

    @Override
    public Optional<Lease> tryLock(String loadId) {
        try {
            turns.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting to lock load " + loadId, e);
        }
        SqlConnection connection;
        boolean locked;
        try {
            connection = Pg.await(pool.getConnection());
        } catch (RuntimeException e) {
            turns.release();
            throw e;
        }
        try {
            locked = Pg.await(connection.preparedQuery(TRY_LOCK).execute(Tuple.of(loadId)))
                    .iterator().next().getBoolean("locked");
        } catch (RuntimeException e) {
            connection.close();
            turns.release();
            throw e;
        }
        if (!locked) {
            connection.close();
            turns.release();
            return Optional.empty();
        }
        return Optional.of(() -> {
            try {
                Pg.await(connection.preparedQuery(UNLOCK).execute(Tuple.of(loadId)));
            } finally {
                connection.close();
                turns.release();
            }
        });
    }
}
