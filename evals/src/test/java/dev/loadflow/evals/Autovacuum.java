package dev.loadflow.evals;

import dev.loadflow.evals.local.LocalRun;

import java.sql.SQLException;

/**
 * Autovacuum on for a benchmark's run, as in production. A server that runs with it off (some
 * CI servers do) gets it turned on with {@code ALTER SYSTEM} for the run and reset at its end.
 */
final class Autovacuum implements AutoCloseable {

    private final LocalRun stack;
    private final boolean turnedOn;

    private Autovacuum(LocalRun stack, boolean turnedOn) {
        this.stack = stack;
        this.turnedOn = turnedOn;
    }

    static Autovacuum on(LocalRun stack) throws SQLException {
        if (stack.count("SELECT CASE WHEN current_setting('autovacuum') = 'on' THEN 1 ELSE 0 END") == 1) {
            return new Autovacuum(stack, false);
        }
        stack.sql("ALTER SYSTEM SET autovacuum = on");
        stack.sql("SELECT pg_reload_conf()");
        System.out.println("autovacuum was off on this server: on for this run (ALTER SYSTEM; reset at the end)");
        return new Autovacuum(stack, true);
    }

    @Override
    public void close() throws SQLException {
        if (turnedOn) {
            stack.sql("ALTER SYSTEM RESET autovacuum");
            stack.sql("SELECT pg_reload_conf()");
        }
    }
}
