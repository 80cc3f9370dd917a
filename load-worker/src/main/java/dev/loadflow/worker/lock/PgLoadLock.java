package dev.loadflow.worker.lock;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;

import java.util.Optional;

/**
 * {@link LoadLock} on a PostgreSQL session advisory lock keyed by the load id. The lock lives
 * on a connection held for the run and is released on close (or when that connection dies).
 */
public final class PgLoadLock implements LoadLock {

    static final String TRY_LOCK = "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked";
    static final String UNLOCK = "SELECT pg_advisory_unlock(hashtextextended($1, 0))";

    private final Pool pool;

    public PgLoadLock(Pool pool) {
        this.pool = pool;
    }

    @Override
    public Optional<Lease> tryLock(String loadId) {
        SqlConnection connection = Pg.await(pool.getConnection());
        boolean locked;
        try {
            locked = Pg.await(connection.preparedQuery(TRY_LOCK).execute(Tuple.of(loadId)))
                    .iterator().next().getBoolean("locked");
        } catch (RuntimeException e) {
            connection.close();
            throw e;
        }
        if (!locked) {
            connection.close();
            return Optional.empty();
        }
        return Optional.of(() -> {
            try {
                Pg.await(connection.preparedQuery(UNLOCK).execute(Tuple.of(loadId)));
            } finally {
                connection.close();
            }
        });
    }
}
