package dev.loadflow.worker;

import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.testing.TestCallers;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A PostgreSQL of the test's own, which the service is pointed at before it runs: the test
 * starts it, stops it and starts it again (same port, same data) to play a database outage.
 */
public class LateDatabase implements QuarkusTestResourceLifecycleManager {

    private static volatile int port;
    private static volatile int managementPort;
    private static volatile Path dataDirectory;
    private static volatile EmbeddedPostgres server;

    @Override
    public Map<String, String> start() {
        port = freePort();
        managementPort = freePort();
        try {
            dataDirectory = Files.createTempDirectory("loadflow-outage");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> config = new HashMap<>(TestCallers.config());
        config.put("quarkus.management.port", String.valueOf(managementPort));
        config.put("quarkus.management.test-port", String.valueOf(managementPort));
        config.put("quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + port + "/postgres");
        config.put("quarkus.datasource.jdbc.url", "jdbc:postgresql://127.0.0.1:" + port + "/postgres");
        config.put("quarkus.datasource.username", "postgres");
        config.put("quarkus.datasource.password", "postgres");
        config.put("loadflow.db.migrate-at-start", "true");
        // the outage outlasts the liveness window: backoffs of 2 s make it 28 s shorter
        config.put("loadflow.loop.max-backoff", PostgresTestResource.OUTAGE_BACKOFF.toString());
        return config;
    }

    public static int managementPort() {
        return managementPort;
    }

    /** Starts the database, on its data of an earlier start if there was one. */
    public static synchronized void up() {
        try {
            // a busy machine can take longer than the library's 10 s to start a server: give it a minute
            server = EmbeddedPostgres.builder().setPort(port).setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false).setServerConfig("fsync", "off")
                    .setPGStartupWait(java.time.Duration.ofMinutes(1)).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops the database (a fast shutdown: connections are cut). */
    public static synchronized void down() {
        try {
            server.close();
            server = null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
        if (server != null) {
            down();
        }
        try (Stream<Path> files = Files.walk(dataDirectory)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int freePort() {
        return PostgresTestResource.freePort();
    }
}
