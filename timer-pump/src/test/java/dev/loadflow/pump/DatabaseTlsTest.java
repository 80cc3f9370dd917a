package dev.loadflow.pump;

import dev.loadflow.service.testing.TlsPostgresTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

import static dev.loadflow.service.testing.Management.management;
import static dev.loadflow.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A service reaches a PostgreSQL server that takes TLS only, verifying its certificate and name
 * ({@code sslmode=verify-full}, as the site's overlay sets it): every one of its connections (the
 * pool, the LISTEN connection, the schema gate's JDBC) is encrypted, and the same settings refuse
 * a server whose certificate does not name the host they reach.
 */
@QuarkusTest
@WithTestResource(TlsPostgresTestResource.class)
class DatabaseTlsTest {

    @Test
    void everyConnectionOfTheServiceIsEncryptedToAVerifiedServer() throws SQLException {
        await().atMost(Duration.ofSeconds(60)).until(() -> management().get("/q/health/ready").statusCode() == 200);

        try (Connection admin = TlsPostgresTestResource.admin();
             ResultSet rows = admin.createStatement().executeQuery("""
                     SELECT count(*) AS connections, count(*) FILTER (WHERE NOT s.ssl) AS clear,
                            count(*) FILTER (WHERE a.application_name LIKE '%listen') AS listening
                     FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
                     WHERE a.datname = 'loadflow_tls' AND a.pid <> pg_backend_pid()""")) {
            rows.next();
            assertThat(rows.getLong("connections")).as("the service's connections").isGreaterThanOrEqualTo(2);
            assertThat(rows.getLong("listening")).as("its LISTEN connection among them").isEqualTo(1);
            assertThat(rows.getLong("clear")).as("none in the clear").isZero();
        }
    }

    @Test
    void theServerTakesNoConnectionInTheClearAndVerifyFullRefusesAnotherName() {
        assertThatThrownBy(() -> DriverManager.getConnection(TlsPostgresTestResource.jdbcUrl("localhost", "sslmode=disable"),
                "postgres", "postgres").close()).isInstanceOf(SQLException.class).hasMessageContaining("pg_hba.conf");
        // the certificate names localhost only: reached as 127.0.0.1 it is not the server's
        assertThatThrownBy(() -> DriverManager.getConnection(TlsPostgresTestResource.jdbcUrl("127.0.0.1",
                        "sslmode=verify-full&sslrootcert=" + TlsPostgresTestResource.authority()), "postgres", "postgres").close())
                .isInstanceOf(SQLException.class);
    }
}
