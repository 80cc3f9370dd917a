package dev.loadflow.service.testing;

import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;

/**
 * Gives a {@code @QuarkusTest} a fresh migrated database on the test JVM's PostgreSQL
 * (embedded, or the server the standard datasource variables name) and points both the
 * reactive and the JDBC datasource at it, and makes the service trust the {@link TestCallers}.
 */
public class PostgresTestResource implements QuarkusTestResourceLifecycleManager {

    /** Init arg: {@code "false"} leaves the database unmigrated (a migration Job that has not run yet). */
    public static final String MIGRATE = "migrate";

    private static volatile TestDatabase current;
    private static volatile int managementPort;

    private TestDatabase database;
    private boolean migrate = true;

    /**
     * The database of the running test's service: tests that look at rows use it over JDBC, so
     * the same test class also runs as a {@code @QuarkusIntegrationTest} against the packaged jar.
     */
    public static TestDatabase current() {
        return current;
    }

    /**
     * The management interface's port of the running test's service: a free port chosen at its
     * start, the same whether the service runs in the test JVM or packaged.
     */
    public static int managementPort() {
        return managementPort;
    }

    @Override
    public void init(Map<String, String> initArgs) {
        migrate = Boolean.parseBoolean(initArgs.getOrDefault(MIGRATE, "true"));
    }

    @Override
    public Map<String, String> start() {
        database = PostgresServer.get().createDatabase("service", migrate);
        current = database;
        Map<String, String> config = new HashMap<>(TestCallers.config());
        managementPort = freePort();
        config.put("quarkus.management.port", String.valueOf(managementPort));
        config.put("quarkus.management.test-port", String.valueOf(managementPort));
        config.putAll(Map.of(
                "quarkus.datasource.reactive.url", database.reactiveUrl(),
                "quarkus.datasource.jdbc.url", database.jdbcUrl(),
                "quarkus.datasource.username", database.user(),
                "quarkus.datasource.password", database.password()));
        return config;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
        if (database != null) {
            database.close();
        }
    }
}
