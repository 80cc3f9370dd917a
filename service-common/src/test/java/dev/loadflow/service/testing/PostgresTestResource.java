package dev.loadflow.service.testing;

import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import io.micrometer.core.instrument.Metrics;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Gives a {@code @QuarkusTest} a fresh migrated database on the test JVM's PostgreSQL
 * (embedded, or the server the standard datasource variables name) and points both the
 * reactive and the JDBC datasource at it, and makes the service trust the {@link TestCallers}.
 * The service connects as production's services do, as a member of the runtime role
 * {@code loadflow_app} (no DDL, the audit trail insert-only); only its migrations run as the
 * schema's owner ({@code quarkus.flyway.username}).
 */
public class PostgresTestResource implements QuarkusTestResourceLifecycleManager {

    /** Init arg: {@code "false"} leaves the database unmigrated (a migration Job that has not run yet). */
    public static final String MIGRATE = "migrate";

    /**
     * Init arg: {@code "flowing"} or {@code "stalled"} puts an {@link UnreliableLink} between the
     * service and its database (the test breaks it through {@link #link()}), flowing or silent
     * from the service's start.
     */
    public static final String LINK = "link";
    /** The longest backoff of a service whose link is tested ({@code loadflow.loop.max-backoff}; 30 s by default). */
    public static final Duration OUTAGE_BACKOFF = Duration.ofSeconds(2);

    /** The login role the services under test connect as: a member of {@code loadflow_app}. */
    public static final String SERVICE_ROLE = "loadflow_service_test";
    private static final String SERVICE_PASSWORD = "service-test-password";
    /** The login retention runs under: a member of {@code loadflow_retention}. */
    public static final String RETENTION_ROLE = "loadflow_retention_test";
    private static final String RETENTION_PASSWORD = "retention-test-password";

    private static volatile TestDatabase current;
    private static volatile int managementPort;
    private static volatile UnreliableLink link;

    private TestDatabase database;
    private boolean migrate = true;
    private String linkState;

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

    /** The link between the running test's service and its database, with {@link #LINK} set. */
    public static UnreliableLink link() {
        return link;
    }

    @Override
    public void init(Map<String, String> initArgs) {
        migrate = Boolean.parseBoolean(initArgs.getOrDefault(MIGRATE, "true"));
        linkState = initArgs.get(LINK);
    }

    @Override
    public Map<String, String> start() {
        // Meters that a service started earlier in this test JVM registered stay in Micrometer's
        // global composite, which hands them to the next service's registry: each service under
        // test starts with none, as a deployed one does.
        Metrics.globalRegistry.clear();
        database = PostgresServer.get().createDatabase("service", migrate);
        current = database;
        Map<String, String> config = new HashMap<>(TestCallers.config());
        managementPort = freePort();
        config.put("quarkus.management.port", String.valueOf(managementPort));
        config.put("quarkus.management.test-port", String.valueOf(managementPort));
        serviceRole(database);
        String reactiveUrl = database.reactiveUrl();
        String jdbcUrl = database.jdbcUrl();
        if (linkState != null) {
            link = UnreliableLink.to(database.host(), database.port());
            if (linkState.equals("stalled")) {
                link.stall();
            }
            String through = "127.0.0.1:" + link.port() + "/";
            reactiveUrl = reactiveUrl.replace(database.host() + ":" + database.port() + "/", through);
            jdbcUrl = jdbcUrl.replace(database.host() + ":" + database.port() + "/", through);
            // a test of a failing link waits out the liveness window: backoffs of 2 s make it 28 s shorter
            config.put("loadflow.loop.max-backoff", OUTAGE_BACKOFF.toString());
        }
        config.putAll(Map.of(
                "quarkus.datasource.reactive.url", reactiveUrl,
                "quarkus.datasource.jdbc.url", jdbcUrl,
                "quarkus.datasource.username", SERVICE_ROLE,
                "quarkus.datasource.password", SERVICE_PASSWORD,
                "quarkus.flyway.username", database.user(),
                "quarkus.flyway.password", database.password(),
                "loadflow.retention.username", RETENTION_ROLE,
                "loadflow.retention.password", RETENTION_PASSWORD));
        return config;
    }

    /**
     * The services' login role. {@code loadflow_app} is the migrations' (V20), made here too when this
     * server has not migrated a database yet, so that a service may start before its migration ran.
     */
    private static void serviceRole(TestDatabase database) {
        database.execute("""
                DO $$ BEGIN
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_app') THEN CREATE ROLE loadflow_app NOLOGIN; END IF;
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%1$s') THEN CREATE ROLE %1$s LOGIN IN ROLE loadflow_app; END IF;
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_retention') THEN CREATE ROLE loadflow_retention NOLOGIN; END IF;
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%2$s') THEN CREATE ROLE %2$s LOGIN IN ROLE loadflow_retention; END IF;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; -- made meanwhile by another test JVM
                END $$""".formatted(SERVICE_ROLE, RETENTION_ROLE));
        database.execute("ALTER ROLE " + SERVICE_ROLE + " PASSWORD '" + SERVICE_PASSWORD + "'");
        database.execute("ALTER ROLE " + RETENTION_ROLE + " PASSWORD '" + RETENTION_PASSWORD + "'");
    }

    /**
     * A port free now, below Linux's ephemeral range (32768 and up): a port the system hands out
     * could be taken by any process's outgoing connection (a database client's, another test JVM's)
     * between this look and the service's bind, and the service would fail to start.
     */
    public static int freePort() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int tries = 0; tries < 200; tries++) {
            int port = random.nextInt(20_000, 32_000);
            try (ServerSocket socket = new ServerSocket(port)) {
                return socket.getLocalPort();
            } catch (IOException taken) {
                // another one
            }
        }
        throw new IllegalStateException("no free port between 20000 and 32000");
    }

    @Override
    public void stop() {
        if (link != null) {
            link.close();
            link = null;
        }
        if (database != null) {
            database.close();
        }
    }
}
