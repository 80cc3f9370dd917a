package dev.loadflow.worker.lock;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * {@link LoadLock} as a lease row per load ({@code load_lock}, migration V25): taken when the load
 * has no row or its lease has ended, released by deleting it. No connection is held while the
 * run waits for its policy (a model's answer takes seconds), so runs of many loads wait side by
 * side, each holding only its own load; a holder that dies leaves a lease that ends by itself.
 */
public final class PgLeaseLock implements LoadLock {

    /** Takes the load's lease unless a live one is held: $1 load, $2 holder, $3 the lease's end, $4 now. */
    static final String TAKE = """
            INSERT INTO load_lock (load_id, holder, until) VALUES ($1, $2, $3)
            ON CONFLICT (load_id) DO UPDATE SET holder = excluded.holder, until = excluded.until
            WHERE load_lock.until <= $4
            RETURNING holder""";

    static final String RELEASE = "DELETE FROM load_lock WHERE load_id = $1 AND holder = $2";

    private final Pool pool;
    private final Clock clock;
    private final Duration lease;

    /** @param lease how long a lease holds if its run never releases it: longer than a run's deadline */
    public PgLeaseLock(Pool pool, Clock clock, Duration lease) {
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("a lease must last, got " + lease);
        }
        this.pool = pool;
        this.clock = clock;
        this.lease = lease;
    }

    @Override
    public Optional<Lease> tryLock(String loadId) {
        UUID holder = UUID.randomUUID();
        var now = clock.instant();
        boolean taken = Pg.await(pool.preparedQuery(TAKE).execute(Tuple.of(loadId, holder, Pg.at(now.plus(lease)), Pg.at(now))))
                .rowCount() == 1;
        if (!taken) {
            return Optional.empty();
        }
        return Optional.of(() -> Pg.await(pool.preparedQuery(RELEASE).execute(Tuple.of(loadId, holder))));
    }
}
