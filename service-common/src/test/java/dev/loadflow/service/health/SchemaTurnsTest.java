package dev.loadflow.service.health;

import dev.loadflow.service.loop.LoopConfig;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
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
import java.util.function.Supplier;

import static dev.loadflow.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A migration at start and the schema gate's looks share the services' JDBC pool of three
 * connections ({@code quarkus.datasource.jdbc.max-size}). A migration holds all three by its end
 * (its history table's, its statements' and its after-migrate callbacks'), so a look beside it
 * waits for a connection until the pool gives up: the gate then knows nothing and the service is
 * not ready, and where the look held one as the migration asked for its last, each waited on the
 * other. Here the last migration takes two seconds and the pool gives up after half of one.
 */
class SchemaTurnsTest {

    private static final Duration ACQUISITION_TIMEOUT = Duration.ofMillis(500);
    private static final LoopConfig DEFAULT_LOOPS = new LoopConfig(Duration.ofSeconds(30), Duration.ofSeconds(5));

    private final TestDatabase database = PostgresServer.get().createDatabase("turns", false);
    private final AgroalDataSource pool = connections(database, configuredJdbcPool());
    private final Flyway flyway = asTheServicesConfigureIt(Flyway.configure().dataSource(pool)
            .locations("classpath:db/migration", "classpath:db/slow-migration")).load();

    /** With the callbacks the services add ({@link DistributeOnCitus}). */
    private static FluentConfiguration asTheServicesConfigureIt(FluentConfiguration configuration) {
        new DistributeOnCitus().customize(configuration);
        return configuration;
    }

    @AfterEach
    void close() {
        pool.close();
        database.close();
    }

    @Test
    void aMigrationAtStartRunsToItsEndOnThePoolAsConfigured() {
        MigrateAtStart migrateAtStart = new MigrateAtStart(flyway, new SchemaTurns(), DEFAULT_LOOPS, true);

        migrateAtStart.start(null);

        assertThat(migrateAtStart.migrated()).as("migrated, callbacks included, at the first attempt").isTrue();
        assertThat(flyway.info().pending()).isEmpty();
    }

    @Test
    void onTwoConnectionsAMigrationGivesUpAfterItsLastStep() {
        try (AgroalDataSource two = connections(database, 2)) {
            Flyway onTwo = asTheServicesConfigureIt(Flyway.configure().dataSource(two).locations("classpath:db/migration")).load();
            MigrateAtStart migrateAtStart = new MigrateAtStart(onTwo, new SchemaTurns(), DEFAULT_LOOPS, true);

            migrateAtStart.start(null);
            migrateAtStart.stop(null);

            assertThat(migrateAtStart.migrated()).as("gave up waiting for the callbacks' connection").isFalse();
            assertThat(onTwo.info().pending()).as("though every migration was applied").isEmpty();
        }
    }

    /**
     * A look takes two connections: Flyway's reading of the history, and one it asks for at the
     * reading's end for the callbacks (the services add {@code CitusSchema}). The services on Kubernetes,
     * which do not migrate, have a JDBC pool of two for it (the manifests' checks require it).
     */
    @Test
    void theGatesLookTakesTwoConnectionsAndOnOneFindsNone() {
        new MigrateAtStart(flyway, new SchemaTurns(), DEFAULT_LOOPS, true).start(null);

        assertThat(lookOn(2)).as("on two connections").satisfies(reading -> {
            assertThat(reading.error()).isNull();
            assertThat(reading.standing()).isEqualTo(SchemaGate.Standing.CURRENT);
        });
        assertThat(lookOn(1)).as("on one").satisfies(reading -> {
            assertThat(reading.standing()).isEqualTo(SchemaGate.Standing.UNKNOWN);
            assertThat(reading.error()).containsIgnoringCase("acquisition timeout");
        });
    }

    private SchemaGate.Reading lookOn(int connections) {
        try (AgroalDataSource pool = connections(database, connections)) {
            Flyway reader = asTheServicesConfigureIt(Flyway.configure().dataSource(pool)
                    .locations("classpath:db/migration", "classpath:db/slow-migration")).load();
            return new SchemaGate(reader, new SchemaTurns(), pool, new SimpleMeterRegistry(), Duration.ofMinutes(1)).look();
        }
    }

    @Test
    void theGateLooksBetweenMigrationsNeverBesideOne() {
        SchemaTurns turns = new SchemaTurns();
        MigrateAtStart migrateAtStart = new MigrateAtStart(flyway, turns, DEFAULT_LOOPS, true);
        List<SchemaGate.Reading> readings = looksDuringMigration(migrateAtStart, turns);

        assertThat(migrateAtStart.migrated()).isTrue();
        assertThat(readings).as("looks while the migration ran, and one after").hasSizeGreaterThan(1)
                .allSatisfy(reading -> assertThat(reading.error()).as("what the look could not read").isNull());
        assertThat(readings.getLast().standing()).as("the look after the migration").isEqualTo(SchemaGate.Standing.CURRENT);
    }

    @Test
    void withoutTurnsALookBesideTheMigrationFindsNoConnection() {
        SchemaTurns sideBySide = new SchemaTurns() {
            @Override
            public <T> T take(Supplier<T> look) {
                return look.get();
            }
        };

        List<SchemaGate.Reading> readings = looksDuringMigration(new MigrateAtStart(flyway, sideBySide, DEFAULT_LOOPS, true), sideBySide);

        assertThat(readings).as("looks while the migration ran: the pool gave up on some")
                .anySatisfy(reading -> {
                    assertThat(reading.standing()).isEqualTo(SchemaGate.Standing.UNKNOWN);
                    assertThat(reading.error()).containsIgnoringCase("acquisition timeout");
                });
    }

    /**
     * Migrates at start on a thread of its own and looks at the schema every 100 ms (the gate's
     * own pace is 1 to 5 s while closed) until that has ended, and once after.
     */
    private List<SchemaGate.Reading> looksDuringMigration(MigrateAtStart migrateAtStart, SchemaTurns turns) {
        SchemaGate gate = new SchemaGate(flyway, turns, pool, new SimpleMeterRegistry(), Duration.ofMinutes(1));
        Thread migrating = Thread.ofVirtual().name("migrate-at-start").start(() -> migrateAtStart.start(null));
        List<SchemaGate.Reading> readings = new ArrayList<>();
        await().atMost(Duration.ofMinutes(1)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100)).until(() -> {
            readings.add(gate.look());
            return !migrating.isAlive();
        });
        migrateAtStart.stop(null);
        readings.add(gate.look());
        return readings;
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
