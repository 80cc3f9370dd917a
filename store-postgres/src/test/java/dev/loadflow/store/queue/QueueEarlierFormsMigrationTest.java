package dev.loadflow.store.queue;

import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.pg.WakeupSignal;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * V31 rewrites what releases before 0.2.0 left in the load queue into the form the queue reads
 * now: a group in flight from a delivery without {@code in_flight_until}, {@code in_flight_id}
 * and {@code in_flight_last} stays hidden until its {@code visible_at} and is then delivered; a
 * held load's handle of the old form names its message, so a retry still wakes the load.
 */
class QueueEarlierFormsMigrationTest {

    private static final Instant T = Instant.parse("2026-12-02T07:00:00Z");

    private TestDatabase database;
    private Vertx vertx;

    @AfterEach
    void close() {
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().join();
        }
        if (database != null) {
            database.close();
        }
    }

    private Flyway flyway(String target) {
        return Flyway.configure().dataSource(database.jdbcUrl(), database.user(), database.password())
                .locations("classpath:db/migration").target(target).load();
    }

    @Test
    void whatEarlierReleasesLeftInTheQueueIsDeliveredAndWokenAsBefore() {
        database = PostgresServer.get().createDatabase("queue_forms", false);
        flyway("30").migrate();
        // load a: its head in flight as a delivery before V16 left it (hidden by visible_at alone)
        database.execute("""
                INSERT INTO load_queue (load_id, message_id, body, receipt_handle, receive_count, enqueued_at) VALUES
                    ('load-a', 'a1', '{}', 'aaaaaaaa-0000-4000-8000-000000000001', 1, '2026-12-02T06:59:00Z'),
                    ('load-a', 'a2', '{}', NULL, 0, '2026-12-02T06:59:01Z'),
                    ('load-b', 'b1', '{}', 'bbbbbbbb-0000-4000-8000-000000000002', 3, '2026-12-02T06:59:02Z');
                INSERT INTO load_queue_group (load_id, visible_at, in_flight_handle) VALUES
                    ('load-a', '2026-12-02T07:01:00Z', 'aaaaaaaa-0000-4000-8000-000000000001'),
                    ('load-b', '2026-12-02T08:00:00Z', NULL);
                INSERT INTO held_load (load_id, message_id, message_type, reason, held_since, state, receipt_handle)
                VALUES ('load-b', 'b1', 'LocationPing', 'poison', '2026-12-02T06:59:30Z', 'held',
                        'bbbbbbbb-0000-4000-8000-000000000002:load-b')""");

        flyway("latest").migrate();

        assertThat(database.rows("""
                SELECT in_flight_until = visible_at AS until_set, in_flight_id = (SELECT id FROM load_queue WHERE message_id = 'a1')
                       AS id_set, in_flight_last = in_flight_id AS run_of_one
                FROM load_queue_group WHERE load_id = 'load-a'""")).singleElement()
                .satisfies(row -> assertThat(row).containsValues(true).doesNotContainValue(false));
        String held = (String) database.rows("SELECT receipt_handle FROM held_load WHERE load_id = 'load-b'").getFirst()
                .get("receipt_handle");
        long b1 = database.count("SELECT id FROM load_queue WHERE message_id = 'b1'");
        assertThat(held).isEqualTo("bbbbbbbb-0000-4000-8000-000000000002/" + b1 + ":load-b");
        assertThat(database.count("SELECT count(*) FROM pg_proc WHERE proname = 'load_queue_receive'"))
                .as("only the receive with runs").isEqualTo(1);

        vertx = Vertx.vertx();
        Pool pool = database.pool(vertx, 2);
        FakeClock clock = FakeClock.at(T);
        PgLoadQueue queue = new PgLoadQueue(pool, clock, Duration.ofMinutes(5), new WakeupSignal(), Wakeups.NONE);
        assertThat(queue.receive(10, 5, Duration.ZERO)).as("a in flight until 07:01, b given back until 08:00").isEmpty();

        assertThat(queue.wake("load-b", held)).as("the held load's retry wakes it by its rewritten handle").isTrue();
        assertThat(queue.receive(10, 5, Duration.ZERO)).extracting(ReceivedMessage::messageId).containsExactly("b1");

        clock.advance(Duration.ofMinutes(1));
        List<ReceivedMessage> a = queue.receive(10, 5, Duration.ZERO);
        assertThat(a).as("a's old delivery timed out: its head and the message behind it, in order")
                .extracting(ReceivedMessage::messageId).containsExactly("a1", "a2");
        assertThat(a).extracting(ReceivedMessage::receiveCount).containsExactly(2, 1);
        assertThat(queue.ackAll(a.stream().map(ReceivedMessage::receiptHandle).toList())).isEqualTo(2);
    }
}
