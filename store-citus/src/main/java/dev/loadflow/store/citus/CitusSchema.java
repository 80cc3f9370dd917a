package dev.loadflow.store.citus;

import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.outbox.OutboxStatements;
import dev.loadflow.store.timer.PgTimerStore;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * Distributes the schema after every migration, where the {@code citus} extension is installed;
 * elsewhere it does nothing. Two steps, each its own transaction (Citus creates no function in a
 * transaction that distributed a table): {@code db/citus/distribute.sql} distributes the per-load
 * tables by {@code load_id}; {@code db/citus/functions.sql} creates the functions a node runs for a
 * batch or a claim.
 *
 * <p>The statements those functions run on a shard are the stores' own, written once in Java
 * ({@code *_TEMPLATE}, with the table left open): each double-braced name in
 * {@code functions.sql} is replaced by its template here, so a column added to a store's statement
 * reaches the functions with the next migration, and no second copy can drift.
 *
 * <p>Registered with Flyway by the services ({@code FlywayConfigurationCustomizer}) and by the
 * tests that migrate a Citus schema; idempotent, as Flyway runs it after every migrate.
 */
public final class CitusSchema implements Callback {

    /** Each template the functions run, by the name {@code functions.sql} gives it. */
    static final Map<String, String> STATEMENTS = Map.of(
            "outbox.claim", OutboxStatements.CLAIM_TEMPLATE,
            "outbox.claim_per_channel", OutboxStatements.CLAIM_PER_CHANNEL_TEMPLATE,
            "outbox.mark_dispatched", OutboxStatements.MARK_DISPATCHED_TEMPLATE,
            "eventlog.append", PgEventStore.APPEND_TEMPLATE,
            "eventlog.read_after_one", PgEventStore.READ_AFTER_ONE_TEMPLATE,
            "eventlog.contains", PgEventStore.CONTAINS_TEMPLATE,
            "timers.claim", PgTimerStore.CLAIM_DUE_TEMPLATE,
            "timers.next_fire_at", PgTimerStore.NEXT_FIRE_AT_TEMPLATE,
            "timers.schedule", PgTimerStore.SCHEDULE_TEMPLATE,
            "timers.cancel", PgTimerStore.CANCEL_TEMPLATE);

    @Override
    public boolean supports(Event event, Context context) {
        return event == Event.AFTER_MIGRATE;
    }

    @Override
    public boolean canHandleInTransaction(Event event, Context context) {
        return false;
    }

    @Override
    public void handle(Event event, Context context) {
        Connection connection = context.getConnection();
        try {
            if (!citusInstalled(connection)) {
                return;
            }
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(true);
            try (Statement sql = connection.createStatement()) {
                String searchPath = searchPath(sql);
                setSearchPath(connection, schemaOf(context, searchPath));
                try {
                    sql.execute(resource("distribute.sql"));
                    sql.execute(functions());
                } finally {
                    setSearchPath(connection, searchPath);
                }
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new FlywayException("distributing the schema on Citus failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String getCallbackName() {
        return "distribute on Citus";
    }

    /** {@code functions.sql} with each store statement in place of its name. */
    static String functions() {
        String functions = resource("functions.sql");
        for (Map.Entry<String, String> statement : STATEMENTS.entrySet()) {
            String name = "{{" + statement.getKey() + "}}";
            if (!functions.contains(name)) {
                throw new IllegalStateException("functions.sql does not use " + name);
            }
            functions = functions.replace(name, statement.getValue());
        }
        if (functions.contains("{{")) {
            throw new IllegalStateException("functions.sql names a statement no store gives: "
                    + functions.substring(functions.indexOf("{{"), functions.indexOf("}}") + 2));
        }
        return functions;
    }

    /** The schema Flyway migrates (the functions keep the search_path they are created with), else the connection's. */
    private static String schemaOf(Context context, String searchPath) {
        String[] schemas = context.getConfiguration().getSchemas();
        return schemas.length == 0 ? searchPath : "\"" + schemas[0].replace("\"", "\"\"") + "\"";
    }

    private static String searchPath(Statement sql) throws SQLException {
        try (ResultSet path = sql.executeQuery("SHOW search_path")) {
            path.next();
            return path.getString(1);
        }
    }

    private static void setSearchPath(Connection connection, String searchPath) throws SQLException {
        try (var set = connection.prepareStatement("SELECT set_config('search_path', ?, false)")) {
            set.setString(1, searchPath);
            set.execute();
        }
    }

    private static boolean citusInstalled(Connection connection) throws SQLException {
        try (Statement sql = connection.createStatement();
             ResultSet found = sql.executeQuery("SELECT 1 FROM pg_extension WHERE extname = 'citus'")) {
            return found.next();
        }
    }

    private static String resource(String name) {
        try (InputStream in = CitusSchema.class.getResourceAsStream("/db/citus/" + name)) {
            if (in == null) {
                throw new IllegalStateException("db/citus/" + name + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
