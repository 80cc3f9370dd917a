package dev.loadflow.service.testing;

import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.util.Map;

/**
 * Gives a {@code @QuarkusTest} a fresh migrated database on the test JVM's PostgreSQL
 * (embedded, or the server the standard datasource variables name) and points both the
 * reactive and the JDBC datasource at it.
 */
public class PostgresTestResource implements QuarkusTestResourceLifecycleManager {

    /** Init arg: {@code "false"} leaves the database unmigrated (a migration Job that has not run yet). */
    public static final String MIGRATE = "migrate";

    private static volatile TestDatabase current;

    private TestDatabase database;
    private boolean migrate = true;

    /**
     * The database of the running test's service: tests that look at rows use it over JDBC, so
     * the same test class also runs as a {@code @QuarkusIntegrationTest} against the packaged jar.
     */
    public static TestDatabase current() {
        return current;
    }

    @Override
    public void init(Map<String, String> initArgs) {
        migrate = Boolean.parseBoolean(initArgs.getOrDefault(MIGRATE, "true"));
    }

    @Override
    public Map<String, String> start() {
        database = PostgresServer.get().createDatabase("service", migrate);
        current = database;
        return Map.of(
                "quarkus.datasource.reactive.url", database.reactiveUrl(),
                "quarkus.datasource.jdbc.url", database.jdbcUrl(),
                "quarkus.datasource.username", database.user(),
                "quarkus.datasource.password", database.password());
    }

    @Override
    public void stop() {
        if (database != null) {
            database.close();
        }
    }
}
