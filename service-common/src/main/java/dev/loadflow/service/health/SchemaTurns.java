package dev.loadflow.service.health;

import jakarta.inject.Singleton;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * One look at the schema through Flyway at a time in a service. The JDBC pool is two connections
 * (the stores use the reactive pool), a migration takes two (its history table's and its
 * statements') and the schema gate's reading one: run side by side, after a database came back
 * or on a busy machine, each held a connection while waiting for a second, and both gave up on an
 * acquisition timeout, round after round, with readiness down although the database answered.
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
