package dev.loadflow.store.roles;

import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Each role the migrations make holds what it uses, listed table by table: a grant more (or
 * fewer) fails here and names the table. And what a login of each role may not do, it cannot.
 */
class RoleGrantsTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("role_grants");

    /** Each table's privileges for {@code role}, as {@code table -> [SELECT, INSERT, ...]}; partitions under their parent's name. */
    private static Map<String, TreeSet<String>> grants(String role) {
        Map<String, TreeSet<String>> grants = new TreeMap<>();
        for (Map<String, Object> row : PG.database().rows("""
                SELECT c.relname AS name, p.privilege AS privilege
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                CROSS JOIN unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) AS p(privilege)
                WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
                  AND has_table_privilege(?, c.oid, p.privilege)
                ORDER BY 1, 2""", role)) {
            grants.computeIfAbsent((String) row.get("name"), t -> new TreeSet<>()).add((String) row.get("privilege"));
        }
        return grants;
    }

    private static TreeSet<String> of(String... privileges) {
        return new TreeSet<>(List.of(privileges));
    }

    @Test
    void theServicesAppendToTheLogAndRemoveNothingOfItNorOfTheAuditTrailAlertsOrTheSchemasRecords() {
        Map<String, TreeSet<String>> app = grants("loadflow_app");
        Map<String, TreeSet<String>> expected = new TreeMap<>();
        for (String table : app.keySet()) {
            expected.put(table, of("SELECT", "INSERT", "UPDATE", "DELETE"));
        }
        expected.put("event_log", of("SELECT", "INSERT"));
        expected.put("event_log_archive", of("SELECT"));
        expected.put("admin_audit", of("SELECT", "INSERT"));
        expected.put("ops_alert", of("SELECT", "INSERT"));
        expected.put("schema_floor", of("SELECT"));
        expected.put("flyway_schema_history", of("SELECT"));
        expected.put("sop_version", of("SELECT", "INSERT"));

        assertThat(app).containsKeys("event_log", "outbox", "load_queue", "inbound_message", "sop_version").isEqualTo(expected);
        assertThat(PG.database().rows("""
                SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                WHERE i.inhparent IN ('event_log'::regclass, 'event_log_archive'::regclass)
                  AND (has_table_privilege('loadflow_app', c.oid, 'UPDATE') OR has_table_privilege('loadflow_app', c.oid, 'DELETE')
                       OR has_table_privilege('loadflow_app', c.oid, 'TRUNCATE'))""")).as("no partition of the log either").isEmpty();
        assertThat(PG.database().rows("SELECT has_column_privilege('loadflow_app', 'ops_alert', 'acknowledged_at', 'UPDATE') AS may"))
                .singleElement().satisfies(row -> assertThat(row.get("may")).as("it acknowledges alerts").isEqualTo(true));
    }

    @Test
    void retentionMovesTheLogAndRemovesWhatAgedOutAndNothingElse() {
        Map<String, TreeSet<String>> expected = new TreeMap<>(Map.of(
                "event_log", of("SELECT", "INSERT", "DELETE"),
                "event_log_archive", of("SELECT", "INSERT", "DELETE"),
                "timers", of("SELECT"), "held_load", of("SELECT"), "load_queue", of("SELECT"),
                "outbox", of("SELECT", "UPDATE", "DELETE"),
                "outbox_failure", of("SELECT", "DELETE"), "ops_alert", of("SELECT", "DELETE"),
                "load_queue_dead", of("SELECT", "DELETE"), "processed_event", of("SELECT", "DELETE")));
        expected.put("provider_message", of("SELECT", "DELETE"));
        expected.put("inbound_message", of("SELECT", "DELETE"));

        assertThat(grants("loadflow_retention")).isEqualTo(expected);
    }

    @Test
    void kedaReadsTwoCountsAndNoTable() {
        assertThat(grants("loadflow_scaler")).isEmpty();
        assertThat(PG.database().rows("""
                SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND has_table_privilege('loadflow_scaler', c.oid, 'SELECT')
                ORDER BY 1""")).extracting(row -> row.get("name")).containsExactly("scaler_loads_ready", "scaler_rows_due");
    }

    /**
     * The console's role reads through the views of {@code <schema>_console} only, and of the
     * tables only what the schema gate reads; a view leaves out what no page shows.
     */
    @Test
    void theConsoleReadsItsViewsAndOfTheTablesOnlyTheSchemasRecords() {
        assertThat(grants("loadflow_reader")).isEqualTo(Map.of("flyway_schema_history", of("SELECT"), "schema_floor", of("SELECT")));
        List<Map<String, Object>> views = PG.database().rows("""
                SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() || '_console' AND c.relkind = 'v'
                  AND has_table_privilege('loadflow_reader', c.oid, 'SELECT')
                  AND NOT has_table_privilege('loadflow_reader', c.oid, 'INSERT') ORDER BY 1""");
        assertThat(views).extracting(row -> row.get("name")).containsExactly("admin_audit", "event_log", "event_log_archive",
                "held_load", "load_queue", "load_queue_group", "load_stage", "ops_alert", "outbox", "outbox_failure", "sop_version",
                "timers");
        PG.database().execute("""
                INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, available_at, created_at, claim_token)
                VALUES ('L-v/a/1/send_sms', 'L-v', 'send_sms', 'sms', '{}', 'pending', now(), now(), gen_random_uuid())""");
        assertThat(PG.database().rows("SELECT claim_token FROM " + currentSchema() + "_console"
                + ".outbox WHERE outbox_id = 'L-v/a/1/send_sms'")).singleElement()
                .satisfies(row -> assertThat(row.get("claim_token")).as("a claim's token is no page's").isNull());
    }

    private static String currentSchema() {
        return (String) PG.database().rows("SELECT current_schema() AS s").getFirst().get("s");
    }

    /** A login of loadflow_app, tried for what its role may not do: each refused by the server. */
    @Test
    void aServicesLoginCannotRewriteTheLog() throws SQLException {
        PG.database().execute("""
                DO $$ BEGIN
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'grants_test_app') THEN
                        CREATE ROLE grants_test_app LOGIN PASSWORD 'grants-test' IN ROLE loadflow_app;
                    END IF;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
                END $$""");
        try (Connection app = DriverManager.getConnection(PG.database().jdbcUrl(), "grants_test_app", "grants-test");
             Statement sql = app.createStatement()) {
            for (String refused : List.of("DELETE FROM event_log", "UPDATE event_log SET body = '{}'",
                    "DELETE FROM event_log_archive", "TRUNCATE event_log", "DELETE FROM ops_alert",
                    "UPDATE ops_alert SET message = 'x'", "DELETE FROM admin_audit", "UPDATE schema_floor SET lowest_build = 1",
                    "DELETE FROM flyway_schema_history")) {
                assertThatThrownBy(() -> sql.execute(refused)).as(refused).isInstanceOf(SQLException.class)
                        .hasMessageContaining("permission denied");
            }
            sql.execute("UPDATE ops_alert SET acknowledged_at = acknowledged_at WHERE false");
        }
    }
}
