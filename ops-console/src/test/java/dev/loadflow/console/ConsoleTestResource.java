package dev.loadflow.console;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.testing.TestDatabase;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.util.HashMap;
import java.util.Map;

import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

/**
 * The console's surroundings: a migrated database it reads as a member of
 * {@code loadflow_reader} (never as the owner), and one WireMock standing in for the worker's
 * and the dispatcher's admin APIs, so a test sees exactly what the console sent them.
 */
public class ConsoleTestResource implements QuarkusTestResourceLifecycleManager {

    public static final String READER = "loadflow_console_test";
    private static final String READER_PASSWORD = "console-test-password";

    private static volatile WireMockServer admin;
    private final PostgresTestResource postgres = new PostgresTestResource();

    /** The admin APIs' stand-in of the running test. */
    public static WireMockServer admin() {
        return admin;
    }

    /** The database, as its owner: for fixtures the console itself could never write. */
    public static TestDatabase database() {
        return PostgresTestResource.current();
    }

    @Override
    public Map<String, String> start() {
        Map<String, String> config = new HashMap<>(postgres.start());
        database().execute("""
                DO $$
                BEGIN
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%1$s') THEN
                        CREATE ROLE %1$s LOGIN PASSWORD '%2$s' IN ROLE loadflow_reader;
                    END IF;
                END $$""".formatted(READER, READER_PASSWORD));
        config.put("quarkus.datasource.username", READER);
        config.put("quarkus.datasource.password", READER_PASSWORD);
        admin = new WireMockServer(options().dynamicPort());
        admin.start();
        config.put("loadflow.console.worker-url", admin.baseUrl());
        config.put("loadflow.console.dispatcher-url", admin.baseUrl());
        config.put("loadflow.admin.token", "console-break-glass");
        config.put("loadflow.console.trace-url", "http://traces.example/trace/{traceId}");
        return config;
    }

    @Override
    public void stop() {
        if (admin != null) {
            admin.stop();
        }
        postgres.stop();
    }
}
