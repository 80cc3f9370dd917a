package dev.loadflow.service.health;

import dev.loadflow.service.loop.LoopConfig;
import dev.loadflow.store.pg.Migrations;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static dev.loadflow.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A migration at start takes the services' JDBC pool ({@code quarkus.datasource.jdbc.max-size}):
 * all three connections by its end (its history table's, its statements' and its after-migrate
 * callbacks'). The schema gate's looks take none of it: they read the history and the floor over
 * the stores' reactive pool, one connection for a moment, so a look beside a migration finds its
 * connection, and a pod that does not migrate (on Kubernetes, where the Job does) needs one JDBC
 * connection at most (the datasource's readiness check). Here the last migration takes two
 * seconds and the JDBC pool gives up after half of one.
 */
class SchemaLookTest {

    private static final Duration ACQUISITION_TIMEOUT = Duration.ofMillis(500);
    private static final LoopConfig DEFAULT_LOOPS = new LoopConfig(Duration.ofSeconds(30), Duration.ofSeconds(5));

    private final TestDatabase database = PostgresServer.get().createDatabase("turns", false);
    private final AgroalDataSource pool = connections(database, configuredJdbcPool());
    private final Flyway flyway = asTheServicesConfigureIt(Flyway.configure().dataSource(pool)
            .locations("classpath:db/migration", "classpath:db/slow-migration")).load();
    private final Vertx vertx = Vertx.vertx();
    /** The stores' pool, of one connection: all a look needs. */
    private final Pool reactive = database.pool(vertx, 1);

    /** With the callbacks the services add ({@link DistributeOnCitus}). */
    private static FluentConfiguration asTheServicesConfigureIt(FluentConfiguration configuration) {
        new DistributeOnCitus().customize(configuration);
        return configuration;
    }

    @AfterEach
    void close() {
        reactive.close();
        vertx.close();
        pool.close();
        database.close();
    }

    private SchemaGate gate() {
        return new SchemaGate(reactive, new SimpleMeterRegistry(), Duration.ofMinutes(1));
    }

    @Test
    void aMigrationAtStartRunsToItsEndOnThePoolAsConfigured() {
        MigrateAtStart migrateAtStart = new MigrateAtStart(flyway, DEFAULT_LOOPS, true);

        migrateAtStart.start(null);

        assertThat(migrateAtStart.migrated()).as("migrated, callbacks included, at the first attempt").isTrue();
        assertThat(flyway.info().pending()).isEmpty();
    }

    @Test
    void onTwoConnectionsAMigrationGivesUpAfterItsLastStep() {
        try (AgroalDataSource two = connections(database, 2)) {
            Flyway onTwo = asTheServicesConfigureIt(Flyway.configure().dataSource(two).locations("classpath:db/migration")).load();
            MigrateAtStart migrateAtStart = new MigrateAtStart(onTwo, DEFAULT_LOOPS, true);

            migrateAtStart.start(null);
            migrateAtStart.stop(null);

            assertThat(migrateAtStart.migrated()).as("gave up waiting for the callbacks' connection").isFalse();
            assertThat(onTwo.info().pending()).as("though every migration was applied").isEmpty();
        }
    }

    @Test
    void onAnEmptyDatabaseTheGateWaitsForEveryMigrationOfTheBuild() {
        SchemaGate.Reading reading = gate().look();

        assertThat(reading.standing()).isEqualTo(SchemaGate.Standing.BEHIND);
        assertThat(reading.database()).isZero();
        assertThat(reading.build()).isEqualTo(Migrations.NEWEST);
        assertThat(reading.pending()).isEqualTo(Migrations.NEWEST);
        assertThat(reading.error()).isNull();
    }

    /** The gate looks all through a migration at start, each look answered, and the last one open. */
    @Test
    void theGateLooksBesideAMigrationWithoutTakingItsConnections() {
        MigrateAtStart migrateAtStart = new MigrateAtStart(flyway, DEFAULT_LOOPS, true);
        SchemaGate gate = gate();
        Thread migrating = Thread.ofVirtual().name("migrate-at-start").start(() -> migrateAtStart.start(null));
        List<SchemaGate.Reading> readings = new ArrayList<>();
        await().atMost(Duration.ofMinutes(1)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100)).until(() -> {
            readings.add(gate.look());
            return !migrating.isAlive();
        });
        migrateAtStart.stop(null);
        readings.add(gate.look());

        assertThat(migrateAtStart.migrated()).as("the migration found its three connections").isTrue();
        assertThat(readings).as("looks while the migration ran, and one after").hasSizeGreaterThan(1)
                .allSatisfy(reading -> assertThat(reading.error()).as("what the look could not read").isNull());
        assertThat(readings.getLast().standing()).as("the slow migration (V1000) is ahead of the build, and keeps it working")
                .isEqualTo(SchemaGate.Standing.AHEAD_COMPATIBLE);
        assertThat(readings.getLast().database()).isEqualTo(1000);
    }

    /** The services' JDBC pool as shipped ({@code quarkus.datasource.jdbc.max-size}). */
    private static int configuredJdbcPool() {
        Properties config = new Properties();
        try (Reader shipped = Files.newBufferedReader(Path.of("src/main/resources/META-INF/microprofile-config.properties"))) {
            config.load(shipped);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Integer.parseInt(config.getProperty("quarkus.datasource.jdbc.max-size"));
    }

    private static AgroalDataSource connections(TestDatabase database, int connections) {
        try {
            return AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier().connectionPoolConfiguration(pool -> pool
                    .maxSize(connections).acquisitionTimeout(ACQUISITION_TIMEOUT)
                    .connectionFactoryConfiguration(connection -> connection.jdbcUrl(database.jdbcUrl())
                            .principal(new NamePrincipal(database.user())).credential(new SimplePassword(database.password())))));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
