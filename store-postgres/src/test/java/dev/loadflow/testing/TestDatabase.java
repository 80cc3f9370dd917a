package dev.loadflow.testing;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One migrated database of the test server, for one suite; on a Citus coordinator one schema
 * of its database, every session's {@code search_path} and time zone set when it connects.
 */
public final class TestDatabase implements AutoCloseable {

    private final PostgresServer server;
    private final String name;
    private final String schema;
    /** Lent by the server ({@link PostgresServer#lendDatabase}): given back when closed, not dropped. */
    private final boolean lent;

    TestDatabase(PostgresServer server, String name, String schema) {
        this(server, name, schema, false);
    }

    private TestDatabase(PostgresServer server, String name, String schema, boolean lent) {
        this.server = server;
        this.name = name;
        this.schema = schema;
        this.lent = lent;
    }

    /** This schema, to be given back to the server when closed. */
    TestDatabase lent() {
        return new TestDatabase(server, name, schema, true);
    }

    String schema() {
        return schema;
    }

    public String name() {
        return name;
    }

    public String jdbcUrl() {
        return server.jdbcUrl(name) + (schema == null ? "" : "?options="
                + URLEncoder.encode(sessionOptions(), StandardCharsets.UTF_8).replace("+", "%20"));
    }

    /** The URL form {@code quarkus.datasource.reactive.url} takes. */
    public String reactiveUrl() {
        return "postgresql://" + server.host() + ":" + server.port() + "/" + name + (schema == null ? ""
                : "?search_path=" + schema + "&TimeZone=" + URLEncoder.encode(PostgresServer.TEST_TIME_ZONE, StandardCharsets.UTF_8));
    }

    /**
     * In schema mode, what the server sets at each session's start (a database carries them
     * itself); four shards per table, not Citus's 32, so that emptying a suite's tables between
     * tests does not sync hundreds of files.
     */
    private String sessionOptions() {
        return "-c search_path=" + schema + " -c TimeZone=" + PostgresServer.TEST_TIME_ZONE + " -c citus.shard_count=4";
    }

    /** Whether this is a schema on a Citus coordinator, its per-load tables distributed. */
    public boolean citus() {
        return schema != null;
    }

    public String host() {
        return server.host();
    }

    public int port() {
        return server.port();
    }

    public String user() {
        return server.user();
    }

    public String password() {
        return server.password();
    }

    public PgConnectOptions connectOptions() {
        PgConnectOptions options = new PgConnectOptions();
        if (schema != null) {
            options.addProperty("search_path", schema).addProperty("TimeZone", PostgresServer.TEST_TIME_ZONE);
        }
        return options.setHost(server.host()).setPort(server.port()).setDatabase(name)
                .setUser(server.user()).setPassword(server.password()).setCachePreparedStatements(true)
                .addProperty("enable_seqscan", "off").addProperty("jit", "off")
                // as the services' pools (service-common's configuration); Citus plans only custom plans of our batches
                .addProperty("plan_cache_mode", citus() ? "auto" : "force_generic_plan");
    }

    public Pool pool(Vertx vertx, int size) {
        return PgBuilder.pool().with(new PoolOptions().setMaxSize(size)).connectingTo(connectOptions()).using(vertx).build();
    }

    /** Runs plain SQL over JDBC: for fixtures and for checks that must not go through the code under test. */
    public void execute(String sql) {
        try (Connection connection = DriverManager.getConnection(jdbcUrl(), user(), password());
             Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Counts rows with a plain SQL query returning one number. */
    public long count(String sql) {
        try (Connection connection = DriverManager.getConnection(jdbcUrl(), user(), password());
             Statement statement = connection.createStatement();
             var rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Runs a parameterised query over JDBC ({@code ?} placeholders); each row as column → value. */
    public java.util.List<java.util.Map<String, Object>> rows(String sql, Object... params) {
        try (Connection connection = DriverManager.getConnection(jdbcUrl(), user(), password());
             var statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                statement.setObject(i + 1, params[i]);
            }
            java.util.List<java.util.Map<String, Object>> rows = new java.util.ArrayList<>();
            try (var rs = statement.executeQuery()) {
                var meta = rs.getMetaData();
                while (rs.next()) {
                    java.util.Map<String, Object> row = new java.util.LinkedHashMap<>();
                    for (int c = 1; c <= meta.getColumnCount(); c++) {
                        row.put(meta.getColumnLabel(c), rs.getObject(c));
                    }
                    rows.add(row);
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Empties every loadflow table. */
    public void truncateAll() {
        execute("TRUNCATE event_log, event_log_archive, outbox, outbox_failure, timers, load_queue, load_queue_group, load_queue_dead, processed_event, ops_alert, load_stage, admin_audit, held_load, channel_circuit, queue_unrun_receive, provider_message, inbound_message, sop_version");
    }

    @Override
    public void close() {
        if (lent) {
            server.giveBack(this);
        } else if (schema == null) {
            server.dropDatabase(name);
        } else {
            server.dropSchema(schema);
        }
    }
}
