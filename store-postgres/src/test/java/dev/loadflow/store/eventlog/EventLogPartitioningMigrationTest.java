package dev.loadflow.store.eventlog;

import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migration that partitions a populated log, run while a writer keeps appending: every
 * row that was there and every append that committed is in the partitioned log, once, and its
 * keys are unique there.
 */
class EventLogPartitioningMigrationTest {

    private static final int LOADS = 2_000;
    private static final int ENTRIES_PER_LOAD = 30;

    private TestDatabase database;

    @AfterEach
    void drop() {
        if (database != null) {
            database.close();
        }
    }

    private Flyway flyway(String target) {
        return Flyway.configure().dataSource(database.jdbcUrl(), database.user(), database.password())
                .locations("classpath:db/migration").target(target).load();
    }

    @Test
    void aPopulatedLogIsPartitionedWhileAppendsGoOnAndNoRowIsLostOrDoubled() throws Exception {
        database = PostgresServer.get().createDatabase("partition_migration", false);
        flyway("9").migrate();
        database.execute("""
                INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, body)
                SELECT 'load-' || l, s, 'e-' || s, 'event', 'LocationPing', '2026-11-30T07:00:00Z',
                       '2026-11-30T07:00:00Z', jsonb_build_object('eventId', 'e-' || s)
                FROM generate_series(1, %d) l, generate_series(1, %d) s""".formatted(LOADS, ENTRIES_PER_LOAD));

        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong committed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> appendUntilStopped(writing, committed, failed));
        try {
            flyway("latest").migrate();
        } finally {
            writing.set(false);
            writer.get();
        }

        assertThat(committed.get()).as("appends went on during the migration").isPositive();
        assertThat(database.count("SELECT count(*) FROM pg_partitioned_table WHERE partrelid = 'event_log'::regclass"))
                .isEqualTo(1);
        assertThat(database.count("SELECT count(*) FROM event_log"))
                .as("every row that was there and every committed append")
                .isEqualTo((long) LOADS * ENTRIES_PER_LOAD + committed.get());
        assertThat(database.count("""
                SELECT count(*) FROM (SELECT load_id, seq FROM event_log GROUP BY 1, 2 HAVING count(*) > 1) d"""))
                .isZero();
        assertThat(database.count("""
                SELECT count(*) FROM (SELECT load_id, max(seq) AS top, count(*) AS n FROM event_log GROUP BY 1) l
                WHERE l.top <> l.n""")).as("no load has a gap in its seqs").isZero();
        assertThat(database.count("SELECT count(*) FROM pg_class WHERE relname = 'event_log_partitioned'")).isZero();
    }

    /** Appends one entry after a random load's last, as the stores do, until told to stop. */
    private void appendUntilStopped(AtomicBoolean writing, AtomicLong committed, AtomicLong failed) {
        try (Connection connection = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password())) {
            var insert = connection.prepareStatement("""
                    INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, body)
                    SELECT ?, coalesce((SELECT max(seq) FROM event_log WHERE load_id = ?), 0) + 1, ?, 'event',
                           'InboundSms', '2026-11-30T08:00:00Z', '2026-11-30T08:00:00Z', '{}'""");
            long n = 0;
            while (writing.get()) {
                String load = "load-" + (1 + ThreadLocalRandom.current().nextInt(LOADS));
                insert.setString(1, load);
                insert.setString(2, load);
                insert.setString(3, "late-" + n++);
                try {
                    committed.addAndGet(insert.executeUpdate());
                } catch (SQLException e) {
                    failed.incrementAndGet(); // a statement caught by the swap: the worker's run retries it
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
