package dev.loadflow.store.citus;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migrations on a Citus cluster: every per-load table distributed by {@code load_id} and
 * co-located with the log, their keys widened to hold it, {@code channel_circuit} a reference
 * table, the load queue and the admin tables left on the coordinator; a second migrate changes
 * nothing. Needs a
 * Citus coordinator ({@code LOADFLOW_CITUS_JDBC_URL}, by default the three-node cluster's
 * {@code jdbc:postgresql://127.0.0.1:5440/postgres}, user and password {@code loadflow});
 * tagged {@code citus}, run by {@code .ci/run} once it has started that cluster.
 */
@Tag("citus")
class CitusSchemaTest {

    private static final String URL = env("LOADFLOW_CITUS_JDBC_URL", "jdbc:postgresql://127.0.0.1:5440/postgres");
    private static final String USER = env("LOADFLOW_CITUS_USER", "loadflow");
    private static final String PASSWORD = env("LOADFLOW_CITUS_PASSWORD", "loadflow");
    private static final String SCHEMA = "loadflow_citus_schema_test";
    private static final List<String> PER_LOAD = List.of("event_log", "event_log_archive", "outbox", "outbox_failure", "timers",
            "held_load", "load_stage", "ops_alert", "load_lock");

    @BeforeAll
    static void migrateAFreshSchema() throws SQLException {
        try (Connection c = connect(); Statement sql = c.createStatement()) {
            sql.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            sql.execute("CREATE SCHEMA " + SCHEMA);
        }
        migrate();
    }

    private static void migrate() {
        Flyway.configure().dataSource(URL, USER, PASSWORD).schemas(SCHEMA).locations("classpath:db/migration")
                .callbacks(new CitusSchema()).load().migrate();
    }

    @Test
    void everyPerLoadTableIsDistributedByLoadIdAndCoLocatedWithTheLog() throws SQLException {
        Map<String, List<String>> tables = citusTables();

        for (String table : PER_LOAD) {
            assertThat(tables).as(table).containsKey(table);
            assertThat(tables.get(table)).as(table + ": distributed, by load_id")
                    .containsExactly("distributed", "load_id", tables.get("event_log").get(2));
        }
        assertThat(tables.get("channel_circuit")).as("channel_circuit").startsWith("reference");
        assertThat(tables).as("the admin tables stay on the coordinator")
                .doesNotContainKeys("admin_audit", "processed_event", "schema_floor", "flyway_schema_history");
        assertThat(tables).as("the load queue stays on the coordinator: a receive locks groups of every load")
                .doesNotContainKeys("load_queue", "load_queue_group", "load_queue_dead", "queue_unrun_receive");
    }

    @Test
    void everyKeyHoldsTheLoadSoAShardCanKeepItAndARowStillFindsItsFailures() throws SQLException {
        assertThat(primaryKey("outbox")).isEqualTo("PRIMARY KEY (load_id, outbox_id)");
        assertThat(primaryKey("outbox_failure")).isEqualTo("PRIMARY KEY (load_id, outbox_id, attempt, failed_at)");
        assertThat(primaryKey("timers")).isEqualTo("PRIMARY KEY (load_id, timer_id)");
        assertThat(primaryKey("ops_alert")).isEqualTo("PRIMARY KEY (load_id, id)");

        try (Connection c = connect(); Statement sql = c.createStatement()) {
            sql.execute("SET search_path = " + SCHEMA);
            sql.execute("""
                    INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, attempts, available_at, created_at)
                    VALUES ('481207/ask:eta_request:ping_0700/1/send_sms', '481207', 'send_sms', 'sms', '{}', 'pending', 1, now(), now())""");
            sql.execute("""
                    INSERT INTO outbox_failure (outbox_id, load_id, attempt, failed_at, failure, parked)
                    VALUES ('481207/ask:eta_request:ping_0700/1/send_sms', '481207', 1, now(), 'retryable: 503', false)""");
            sql.execute("DELETE FROM outbox WHERE load_id = '481207'");
            try (ResultSet left = sql.executeQuery("SELECT count(*) FROM outbox_failure WHERE load_id = '481207'")) {
                left.next();
                assertThat(left.getLong(1)).as("a row's failures go with it, within its shard").isZero();
            }
        }
    }

    /**
     * Called where the probe's shard is not, each function refuses and its caller takes every load
     * by itself: correct, but a statement per load. Each must be sent to its probe's node.
     */
    @Test
    void theHotPathsFunctionsAreSentToTheNodeOfTheirFirstArgument() throws SQLException {
        Map<String, String> byArgument = new LinkedHashMap<>();
        try (Connection c = connect(); Statement sql = c.createStatement(); ResultSet rows = sql.executeQuery("""
                SELECT p.proname, o.distribution_argument_index, o.colocationid
                FROM pg_dist_object o JOIN pg_proc p ON o.classid = 'pg_proc'::regclass AND p.oid = o.objid
                WHERE p.pronamespace = '%s'::regnamespace""".formatted(SCHEMA))) {
            while (rows.next()) {
                byArgument.put(rows.getString(1), rows.getString(2) + "/" + rows.getString(3));
            }
        }
        String logsGroup = citusTables().get("event_log").get(2);

        for (String function : List.of("loadflow_append_here", "loadflow_read_here", "loadflow_contains_here", "loadflow_dispatched_here", "loadflow_timers_here",
                "loadflow_claim_outbox", "loadflow_claim_timers", "loadflow_next_fire_at")) {
            assertThat(byArgument).as(function + ": by its first argument, co-located with the log")
                    .containsEntry(function, "0/" + logsGroup);
        }
    }

    @Test
    void migratingAgainLeavesTheDistributionAsItIs() throws SQLException {
        Map<String, List<String>> before = citusTables();

        migrate();

        assertThat(citusTables()).isEqualTo(before);
    }

    /**
     * Per table of the schema Citus knows: its type, distribution column and co-location group,
     * from Citus's own catalog (the {@code citus_tables} view looks up every schema's tables, and
     * fails on one another suite drops at that moment).
     */
    private static Map<String, List<String>> citusTables() throws SQLException {
        Map<String, List<String>> tables = new LinkedHashMap<>();
        try (Connection c = connect(); Statement sql = c.createStatement(); ResultSet rows = sql.executeQuery("""
                SELECT c.relname,
                       CASE WHEN p.partmethod = 'h' THEN 'distributed' WHEN p.repmodel = 't' THEN 'reference' ELSE 'local' END,
                       column_to_column_name(p.logicalrelid, p.partkey), p.colocationid::text
                FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
                WHERE c.relnamespace = '%s'::regnamespace""".formatted(SCHEMA))) {
            while (rows.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 2; i <= 4; i++) {
                    row.add(rows.getString(i));
                }
                tables.put(rows.getString(1), row);
            }
        }
        return tables;
    }

    private static String primaryKey(String table) throws SQLException {
        try (Connection c = connect(); Statement sql = c.createStatement(); ResultSet row = sql.executeQuery("""
                SELECT pg_get_constraintdef(oid) FROM pg_constraint
                WHERE conrelid = '%s.%s'::regclass AND contype = 'p'""".formatted(SCHEMA, table))) {
            assertThat(row.next()).as(table + " has a primary key").isTrue();
            return row.getString(1);
        }
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(URL, USER, PASSWORD);
    }

    private static String env(String name, String otherwise) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? otherwise : value;
    }
}
