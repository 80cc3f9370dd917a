package dev.loadflow.store.retention;

import java.time.Clock;
import dev.loadflow.store.PgStores;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.LogArchived;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.eventlog.ConcurrencyConflictException;
import dev.loadflow.store.eventlog.DuplicateEntryException;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static dev.loadflow.testing.Fixtures.decision;
import static dev.loadflow.testing.Fixtures.ping;
import static dev.loadflow.testing.Fixtures.sms;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.loadflow.testing.Waits.await;

/**
 * Retention on PostgreSQL: idle loads leave the hot log without a read ever noticing, nothing a
 * pending row, a timer, a held load or a queued message needs goes, and a late append wins
 * over the move.
 */
public class PgRetentionTest {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("retention");

    /** The stores under test: PostgreSQL's (a backend of its own overrides this in its subclass of the suite). */
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new PgStores(PG.pool(), clock, wakeups);
    }

    /** Counts the moves to the archive waiting on a row lock. */
    protected String movesWaitingOnALock() {
        return "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%WITH idle AS%'";
    }

    private static final Instant T0 = Instant.parse("2026-08-01T07:00:00Z");
    private static final Instant LATER = T0.plus(Duration.ofDays(91));
    private static final Instant CUTOFF = LATER.minus(Duration.ofDays(90));

    private final FakeClock clock = FakeClock.at(T0);
    private PgEventStore events;
    private PgRetention retention;

    @BeforeEach
    void setUp() {
        PG.database().truncateAll();
        events = stores(clock, Wakeups.NONE).eventStore();
        retention = retention(PgRetention.Export.NONE);
    }

    private PgRetention retention(PgRetention.Export export) {
        return stores(clock, Wakeups.NONE).retention(export);
    }

    /** Logs a ping and its (empty) decision for {@code loadId}, recorded now. */
    private void logPing(String loadId, String eventId) {
        InboundEvent ping = ping(loadId, eventId, clock.instant());
        events.append(loadId, List.of(ping, decision(ping, clock.instant(), List.of())), events.read(loadId).version(), List.of());
    }

    private long hot(String loadId) {
        return PG.database().count("SELECT count(*) FROM event_log WHERE load_id = '" + loadId + "'");
    }

    private long archived(String loadId) {
        return PG.database().count("SELECT count(*) FROM event_log_archive WHERE load_id = '" + loadId + "'");
    }

    private static List<String> ids(LoadLog log) {
        return log.entries().stream().map(e -> e.seq() + " " + e.entry().entryId()).toList();
    }

    @Test
    void anIdleLoadLeavesTheHotLogAndReadsAsIfNothingMoved() {
        logPing("L-idle", "ping_1");
        logPing("L-idle", "ping_2");
        LoadLog before = events.read("L-idle");
        clock.set(CUTOFF.plus(Duration.ofDays(1)));
        logPing("L-recent", "ping_1");

        PgRetention.Archived moved = retention.archiveIdleLoads(CUTOFF, LATER, 2);

        assertThat(moved).isEqualTo(new PgRetention.Archived(1, 4));
        assertThat(hot("L-idle")).as("only the marker stays hot").isEqualTo(1);
        assertThat(archived("L-idle")).isEqualTo(4);
        assertThat(hot("L-recent")).isEqualTo(2);

        LoadLog after = events.read("L-idle");
        assertThat(after.version()).isEqualTo(5);
        assertThat(after.entries().subList(0, 4)).isEqualTo(before.entries());
        assertThat(after.entries().getLast().entry()).isEqualTo(new LogArchived("L-idle", 4, LATER));
        assertThat(LoadState.project(after).processedEventIds()).containsExactlyInAnyOrder("ping_1", "ping_2");
        assertThat(events.contains("L-idle", "ping_1")).as("an archived entry is still in the load's log").isTrue();
        assertThat(events.contains("L-idle", "dec:ping_2")).isTrue();
        assertThat(events.contains("L-idle", "ping_3")).isFalse();
        assertThat(events.readAfter(Map.of("L-idle", 2L)).get("L-idle")).as("a cached projection at version 2 catches up")
                .extracting(RecordedEntry::seq).containsExactly(3L, 4L, 5L);
        Map<String, List<RecordedEntry>> batch = events.readAfter(Map.of("L-idle", 2L, "L-recent", 1L));
        assertThat(batch.get("L-idle")).as("and so in a batch's read").extracting(RecordedEntry::seq).containsExactly(3L, 4L, 5L);
        assertThat(batch.get("L-recent")).extracting(RecordedEntry::seq).containsExactly(2L);

        assertThat(retention.archiveIdleLoads(CUTOFF, LATER, 2)).as("a second pass finds nothing")
                .isEqualTo(new PgRetention.Archived(0, 0));
    }

    @Test
    void anAppendThatReadBeforeTheMoveReadsAgainAndALateLoadMovesTwiceInOrder() {
        logPing("L-1", "ping_1");
        long staleVersion = events.read("L-1").version();
        retention.archiveIdleLoads(CUTOFF, LATER, 100);

        InboundEvent late = sms("L-1", "sms_1", LATER, "on my way");
        assertThatThrownBy(() -> events.append("L-1", List.of(late, decision(late, LATER, List.of())), staleVersion, List.of()))
                .isInstanceOf(ConcurrencyConflictException.class);
        clock.set(LATER);
        events.append("L-1", List.of(late, decision(late, LATER, List.of())), events.read("L-1").version(), List.of());

        Instant muchLater = LATER.plus(Duration.ofDays(91));
        assertThat(retention.archiveIdleLoads(LATER.plusSeconds(1), muchLater, 100).loads()).isEqualTo(1);

        assertThat(hot("L-1")).isEqualTo(1);
        assertThat(ids(events.read("L-1"))).containsExactly("1 ping_1", "2 dec:ping_1", "3 archived:2",
                "4 sms_1", "5 dec:sms_1", "6 archived:5");
    }

    @Test
    void nothingMovesThatAPendingRowATimerAHeldLoadOrAQueuedMessageStillNeeds() {
        for (String load : List.of("L-pending", "L-timer", "L-held", "L-queued", "L-free")) {
            logPing(load, "ping_1");
        }
        var db = PG.database();
        db.execute("""
                INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, available_at, created_at)
                VALUES ('L-pending/ask:x:ping_1/1/send_sms', 'L-pending', 'send_sms', 'sms', '{}', 'pending', '2026-08-01T07:00:00Z', '2026-08-01T07:00:00Z')""");
        db.execute("""
                INSERT INTO timers (timer_id, load_id, fire_at, status, created_at)
                VALUES ('tmr:L-timer:ask:x:ping_1:1', 'L-timer', '2026-12-01T07:00:00Z', 'scheduled', '2026-08-01T07:00:00Z')""");
        db.execute("""
                INSERT INTO held_load (load_id, message_id, message_type, reason, held_since, state)
                VALUES ('L-held', 'm-1', 'InboundSms', 'unreadable', '2026-08-01T07:00:00Z', 'held')""");
        db.execute("""
                INSERT INTO load_queue (load_id, message_id, body, enqueued_at)
                VALUES ('L-queued', 'm-2', '{}', '2026-08-01T07:00:00Z')""");

        assertThat(retention.archiveIdleLoads(CUTOFF, LATER, 100)).isEqualTo(new PgRetention.Archived(1, 2));

        assertThat(archived("L-free")).isEqualTo(2);
        for (String load : List.of("L-pending", "L-timer", "L-held", "L-queued")) {
            assertThat(hot(load)).as(load).isEqualTo(2);
            assertThat(archived(load)).as(load).isZero();
        }
    }

    @Test
    void anAppendInFlightWhenTheMoveStartsKeepsItsLoadHot() throws Exception {
        logPing("L-1", "ping_1");
        try (Connection writer = DriverManager.getConnection(PG.database().jdbcUrl(), PG.database().user(),
                PG.database().password())) {
            writer.setAutoCommit(false);
            writer.createStatement().execute("""
                    INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, body)
                    VALUES ('L-1', 3, 'sms_1', 'event', 'InboundSms', '2026-08-01T07:00:00Z', '2026-08-01T07:00:00Z',
                            '{"eventId": "sms_1"}')""");
            CompletableFuture<PgRetention.Archived> move = CompletableFuture.supplyAsync(
                    () -> retention.archiveIdleLoads(CUTOFF, LATER, 100));
            String waiting = movesWaitingOnALock();
            await().atMost(Duration.ofSeconds(20)).until(() -> PG.database().count(waiting) == 1);
            writer.commit();

            assertThat(move.get()).as("the marker lost the seq to the append: the load stays")
                    .isEqualTo(new PgRetention.Archived(0, 0));
        }
        assertThat(hot("L-1")).isEqualTo(3);
        assertThat(archived("L-1")).isZero();
    }

    /**
     * Two dead rows that died long ago (each with two failures and an alert) and two parked
     * messages: one of each acknowledged before the cutoff, the other never; fan-out records of
     * the dead row that nobody handled, of a row long gone and a recent one.
     */
    private void deadRowsAlertsAndParkedMessages() {
        var db = PG.database();
        for (String[] row : List.of(new String[] {"L-1/a/1/post_hero_slack", "2026-06-01T00:00:00Z", "'2026-07-01T00:00:00Z'"},
                new String[] {"L-1/b/1/post_hero_slack", "2026-06-01T00:00:00Z", "NULL"},
                new String[] {"L-1/d/1/post_hero_slack", "2026-06-01T00:00:00Z", "'2026-07-30T00:00:00Z'"})) {
            db.execute("""
                    INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, attempts, available_at,
                                        dead_at, created_at, acknowledged_at)
                    VALUES ('%1$s', 'L-1', 'post_hero_slack', 'slack', '{"text": "call"}', 'dead', 2, '%2$s', '%2$s', '%2$s', %3$s);
                    INSERT INTO outbox_failure (load_id, outbox_id, attempt, failed_at, failure, parked) VALUES
                        ('L-1', '%1$s', 1, '%2$s', '503', false), ('L-1', '%1$s', 2, '%2$s', '503', true);
                    INSERT INTO ops_alert (load_id, outbox_id, action_type, kind, message, raised_at, acknowledged_at)
                    VALUES ('L-1', '%1$s', 'post_hero_slack', 'dead', 'x', '%2$s', %3$s)""".formatted(row[0], row[1], row[2]));
        }
        db.execute("""
                INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, available_at, created_at)
                VALUES ('L-1/c/1/send_sms', 'L-1', 'send_sms', 'sms', '{}', 'pending', '2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z');
                INSERT INTO load_queue_dead (load_id, message_id, body, enqueued_at, receive_count, parked_at, reason, acknowledged_at) VALUES
                    ('L-1', 'm-1', '{"eventId": "m-1"}', '2026-06-01T00:00:00Z', 10, '2026-06-01T00:00:00Z', 'x', '2026-07-01T00:00:00Z'),
                    ('L-1', 'm-2', '{}', '2026-06-01T00:00:00Z', 10, '2026-06-01T00:00:00Z', 'x', NULL);
                INSERT INTO processed_event (handler_name, event_id, processed_at) VALUES
                    ('https://client.example/hook', 'L-9/gone/1/stage_changed', '2026-06-01T00:00:00Z'),
                    ('https://client.example/hook', 'L-1/b/1/post_hero_slack', '2026-06-01T00:00:00Z'),
                    ('https://client.example/hook', 'L-2/new/1/stage_changed', '2026-07-30T00:00:00Z')""");
    }

    @Test
    void providerMessagesAndInboundRoutesGoOnceTheirPeriodPassed() {
        PG.database().execute("""
                INSERT INTO provider_message (provider, message_id, outbox_id, load_id, status, recorded_at, updated_at) VALUES
                    ('twilio', 'SM-old', 'L-1/a/1/send_sms', 'L-1', 'delivered', '2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z'),
                    ('twilio', 'SM-new', 'L-1/a/2/send_sms', 'L-1', 'sent', '2026-07-30T00:00:00Z', '2026-07-30T00:00:00Z');
                INSERT INTO inbound_message (provider, message_id, load_id, received_at) VALUES
                    ('twilio', 'SM-in-old', 'L-1', '2026-06-01T00:00:00Z'),
                    ('twilio', 'SM-in-new', 'L-2', '2026-07-30T00:00:00Z')""");

        assertThat(retention.pruneProviderMessages(Instant.parse("2026-07-15T00:00:00Z"), 10)).isEqualTo(2);

        assertThat(PG.database().rows("SELECT message_id FROM provider_message")).extracting(r -> r.get("message_id"))
                .containsExactly("SM-new");
        assertThat(PG.database().rows("SELECT message_id FROM inbound_message")).extracting(r -> r.get("message_id"))
                .containsExactly("SM-in-new");
    }

    @Test
    void onlyWhatAnOperatorAcknowledgedGoesAndOnlyOnceItsPeriodPassedSince() {
        deadRowsAlertsAndParkedMessages();
        Instant before = Instant.parse("2026-07-15T00:00:00Z");

        assertThat(retention.pruneDeadOutbox(before, 10)).isEqualTo(new PgRetention.DeadRows(1, 2));
        assertThat(retention.pruneAlerts(before, 10)).isEqualTo(1);
        assertThat(retention.pruneParkedMessages(before, 10)).isEqualTo(1);
        assertThat(retention.pruneProcessed(before, 10)).isEqualTo(1);

        var db = PG.database();
        assertThat(db.rows("SELECT outbox_id FROM outbox ORDER BY outbox_id")).extracting(r -> r.get("outbox_id"))
                .as("the row nobody handled stays however old, the one acknowledged lately too, and the pending one")
                .containsExactly("L-1/b/1/post_hero_slack", "L-1/c/1/send_sms", "L-1/d/1/post_hero_slack");
        assertThat(db.count("SELECT count(*) FROM outbox_failure")).isEqualTo(4);
        assertThat(db.rows("SELECT outbox_id FROM ops_alert ORDER BY outbox_id")).extracting(r -> r.get("outbox_id"))
                .containsExactly("L-1/b/1/post_hero_slack", "L-1/d/1/post_hero_slack");
        assertThat(db.rows("SELECT message_id FROM load_queue_dead")).extracting(r -> r.get("message_id"))
                .containsExactly("m-2");
        assertThat(db.rows("SELECT event_id FROM processed_event ORDER BY event_id")).extracting(r -> r.get("event_id"))
                .as("a dead row's fan-out records stay while it could be replayed")
                .containsExactly("L-1/b/1/post_hero_slack", "L-2/new/1/stage_changed");
    }

    @Test
    void whatGoesIsExportedFirstAndNothingGoesWhenTheExportFails() {
        deadRowsAlertsAndParkedMessages();
        Instant before = Instant.parse("2026-07-15T00:00:00Z");
        Map<String, List<String>> written = new java.util.LinkedHashMap<>();
        PgRetention failing = retention((table, rows) -> {
            throw new java.io.IOException("No space left on device");
        });

        assertThatThrownBy(() -> failing.pruneDeadOutbox(before, 10)).hasMessageContaining("could not be exported");
        assertThatThrownBy(() -> failing.pruneParkedMessages(before, 10)).hasMessageContaining("could not be exported");
        assertThat(PG.database().count("SELECT count(*) FROM outbox WHERE outbox_id = 'L-1/a/1/post_hero_slack'"))
                .as("kept: it could not be written").isEqualTo(1);
        assertThat(PG.database().count("SELECT count(*) FROM load_queue_dead")).isEqualTo(2);

        PgRetention exporting = retention((table, rows) -> written.put(table, rows));
        exporting.pruneDeadOutbox(before, 10);
        exporting.pruneAlerts(before, 10);
        exporting.pruneParkedMessages(before, 10);

        assertThat(written.keySet()).containsExactly("outbox", "ops_alert", "load_queue_dead");
        var row = dev.loadflow.model.json.JsonReader.parse(written.get("outbox").getFirst()).node();
        assertThat(row.path("outbox_id").asText()).isEqualTo("L-1/a/1/post_hero_slack");
        assertThat(row.path("status").asText()).isEqualTo("dead");
        assertThat(row.path("payload").path("text").asText()).isEqualTo("call");
        assertThat(row.path("failures")).extracting(f -> f.path("attempt").asInt()).containsExactly(1, 2);
        assertThat(written.get("ops_alert")).singleElement().asString().contains("\"outbox_id\": \"L-1/a/1/post_hero_slack\"");
        assertThat(written.get("load_queue_dead")).singleElement().asString().contains("\"message_id\": \"m-1\"")
                .contains("\"body\": {\"eventId\": \"m-1\"}");
    }

    @Test
    void theLogIsPartitionedAndItsKeysStayUniqueAcrossTheWholeTable() {
        assertThat(PG.database().count("SELECT count(*) FROM pg_inherits WHERE inhparent = 'event_log'::regclass"))
                .isEqualTo(16);
        logPing("L-1", "ping_1");
        InboundEvent again = ping("L-1", "ping_1", T0);
        assertThatThrownBy(() -> events.append("L-1", List.of(again), 2, List.of()))
                .as("the duplicate check names the partition's constraint, read as the log's")
                .isInstanceOf(DuplicateEntryException.class);
        InboundEvent next = ping("L-1", "ping_2", T0);
        assertThatThrownBy(() -> events.append("L-1", List.of(next), 1, List.of()))
                .as("the version check too")
                .isInstanceOf(ConcurrencyConflictException.class);
    }
}
