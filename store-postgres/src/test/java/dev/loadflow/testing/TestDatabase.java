package dev.loadflow.testing;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** One migrated database of the test server, for one suite. */
public final class TestDatabase implements AutoCloseable {

    private final PostgresServer server;
    private final String name;

    TestDatabase(PostgresServer server, String name) {
        this.server = server;
        this.name = name;
    }

    public String name() {
        return name;
    }

    public String jdbcUrl() {
        return server.jdbcUrl(name);
    }

    /** The URL form {@code quarkus.datasource.reactive.url} takes. */
    public String reactiveUrl() {
        return "postgresql://" + server.host() + ":" + server.port() + "/" + name;
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
        return new PgConnectOptions().setHost(server.host()).setPort(server.port()).setDatabase(name)
                .setUser(server.user()).setPassword(server.password()).setCachePreparedStatements(true)
                .addProperty("enable_seqscan", "off").addProperty("jit", "off")
                .addProperty("plan_cache_mode", "force_generic_plan"); // as the services' pools (application.properties)
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
        execute("TRUNCATE event_log, event_log_archive, outbox, outbox_failure, timers, load_queue, load_queue_group, load_queue_dead, processed_event, ops_alert, load_stage, admin_audit, held_load, channel_circuit");
    }

    @Override
    public void close() {
        server.dropDatabase(name);
    }
}
