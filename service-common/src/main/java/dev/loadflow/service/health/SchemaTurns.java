package dev.loadflow.service.health;

import jakarta.inject.Singleton;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * One look at the schema through Flyway at a time in a service. The JDBC pool is three
 * connections (the stores use the reactive pool), a migration takes all three (its history
 * table's, its statements' and its after-migrate callbacks') and the schema gate's reading two
 * (the history's, and one Flyway asks for at its end): side by side, after a database came back
 * or on a busy machine, one waited for a connection the other held until the pool gave up, round
 * after round, with readiness down although the database answered.
 */
@Singleton
public class SchemaTurns {

    private final ReentrantLock lock = new ReentrantLock();

    /** Runs {@code look} when no other look at the schema is running. */
    public <T> T take(Supplier<T> look) {
        lock.lock();
        try {
            return look.get();
        } finally {
            lock.unlock();
        }
    }
}
