package dev.loadflow.store.roles;

import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The services' role, {@code loadflow_app}, as a login role that is a member of it meets the
 * schema: the rows of every table are its to change, the audit trail only to add to and read,
 * and the schema is not its to change. SQLSTATE 42501 is {@code insufficient_privilege}.
 */
class RuntimeRoleTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("runtime_role");

    private static final String LOGIN = "loadflow_app_test";
    private static final String PASSWORD = "runtime-role-test";

    private static Connection asTheServices() throws SQLException {
        PG.database().execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + LOGIN + "') THEN "
                + "CREATE ROLE " + LOGIN + " LOGIN IN ROLE loadflow_app; END IF; END $$");
        PG.database().execute("ALTER ROLE " + LOGIN + " PASSWORD '" + PASSWORD + "'");
        return DriverManager.getConnection(PG.database().jdbcUrl(), LOGIN, PASSWORD);
    }

    @Test
    void theServicesRoleChangesRowsAndAddsToTheAuditTrailButCannotRewriteItOrTheSchema() throws SQLException {
        try (Connection services = asTheServices(); Statement sql = services.createStatement()) {
            sql.execute("INSERT INTO admin_audit (at, principal, service, action, target, params, result)"
                    + " VALUES (now(), 'otto', 'outbox-dispatcher', 'outbox.replay', 'x/1', '{}', '{}')");
            sql.execute("INSERT INTO timers (timer_id, load_id, fire_at, status, created_at) VALUES ('tmr:roles:1', 'roles', now(), 'scheduled', now())");
            sql.execute("UPDATE timers SET status = 'cancelled' WHERE timer_id = 'tmr:roles:1'");
            sql.execute("DELETE FROM timers WHERE timer_id = 'tmr:roles:1'");
            try (var rows = sql.executeQuery("SELECT count(*) FROM admin_audit WHERE principal = 'otto'")) {
                assertThat(rows.next() && rows.getLong(1) == 1).as("the audit row was written and is read back").isTrue();
            }

            assertThatThrownBy(() -> sql.execute("UPDATE admin_audit SET principal = 'mallory'"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
            assertThatThrownBy(() -> sql.execute("DELETE FROM admin_audit"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
            assertThatThrownBy(() -> sql.execute("TRUNCATE admin_audit"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
            assertThatThrownBy(() -> sql.execute("DROP TABLE timers"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
            assertThatThrownBy(() -> sql.execute("CREATE TABLE mine (id int)"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
        }
        assertThat(PG.database().count("SELECT count(*) FROM admin_audit WHERE principal = 'otto'"))
                .as("the audit row is as written").isOne();
    }
}
