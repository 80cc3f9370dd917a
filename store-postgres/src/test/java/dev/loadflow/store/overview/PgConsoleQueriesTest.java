package dev.loadflow.store.overview;

import java.time.Clock;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.queue.HeldLoad;
import dev.loadflow.store.queue.QueueMessage;
import dev.loadflow.store.stage.PgLoadStages;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static dev.loadflow.testing.Fixtures.decision;
import static dev.loadflow.testing.Fixtures.etaAsk;
import static dev.loadflow.testing.Fixtures.outboxRows;
import static dev.loadflow.testing.Fixtures.ping;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's own queries (finding loads, the overview's counts and charts, what waits) on
 * the schema as it is: plain PostgreSQL, or distributed by Citus when the suite runs against a
 * coordinator. Two loads: A assigned to client-a, asked for its ETA, its SMS dead and its timer
 * waiting; B assigned to client-b, moved on to {@code delivered} and held.
 */
public class PgConsoleQueriesTest {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("console_queries");

    /** The stores under test: PostgreSQL's (a backend of its own overrides this in its subclass of the suite). */
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new PgStores(PG.pool(), clock, wakeups);
    }

    private static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");
    private static final String A = "load-a-481207";
    private static final String B = "load-b-481208";

    private final FakeClock clock = FakeClock.at(T0);
    private PgStores stores;
    private PgLoadDirectory directory;

    private static InboundEvent assigned(String load, String client, String phone) {
        return new InboundEvent("assign_1", load, T0, T0, "c-" + load, null,
                new EventPayload.LoadAssigned(client, phone, "dispatched"));
    }

    @BeforeEach
    void twoLoads() {
        PG.database().truncateAll();
        stores = stores(clock, Wakeups.NONE);
        directory = stores.loadDirectory();
        EventStore events = stores.eventStore();
        Outbox outbox = stores.outbox(Duration.ofSeconds(90));

        InboundEvent assignA = assigned(A, "client-a", "+15550101");
        InboundEvent pingA = ping(A, "ping_0700", T0);
        List<Action> ask = etaAsk(pingA, T0);
        events.append(A, List.of(assignA, decision(assignA, T0, List.of()), pingA, decision(pingA, T0, ask)), 0,
                outboxRows(A, ask, T0, pingA.eventId()));
        stores.timers(Duration.ofSeconds(30), null).schedule(Timer.schedule(
                TimerId.of(A, AskId.of("eta_request", "ping_0700"), 1), T0.plus(Duration.ofMinutes(30)), "c-" + A));
        OutboxRow sms = outbox.pending(Map.of(Channel.SMS, 10), T0).getFirst();
        outbox.markFailed(sms.outboxId(), sms.claimToken(), "400 invalid number", null);

        InboundEvent assignB = assigned(B, "client-b", "+15550102");
        events.append(B, List.of(assignB, decision(assignB, T0, List.of())), 0, List.of());
        new PgLoadStages(PG.pool()).set(B, "delivered", B + "/evt:assign_1/1/update_stage", T0);
        stores.heldLoads().hold(HeldLoad.held(B, "sms_0712", "InboundSms", "no SOP for client-b", T0));
        stores.queue(Duration.ofMinutes(5), new dev.loadflow.store.pg.WakeupSignal())
                .enqueue(new QueueMessage(B, "sms_0712", "{}"));
        clock.advance(Duration.ofMinutes(45));
    }

    private List<String> found(PgLoadDirectory.Query query) {
        return directory.find(query).stream().map(PgLoadDirectory.Found::loadId).toList();
    }

    private static PgLoadDirectory.Query query(String client, String stage, boolean held, boolean dead, boolean open,
                                               Instant since) {
        return new PgLoadDirectory.Query(client, null, stage, held, dead, open, since, 0, 50);
    }

    @Test
    void eachFilterFindsItsLoadsWithWhatTheListShows() {
        assertThat(directory.find(query("client-a", null, false, false, false, null))).singleElement().satisfies(a -> {
            assertThat(a.loadId()).isEqualTo(A);
            assertThat(a.driverPhone()).isEqualTo("+15550101");
            assertThat(a.stage()).isEqualTo("dispatched");
            assertThat(a.lastActivity()).isEqualTo(T0);
            assertThat(a.held()).isFalse();
            assertThat(a.deadRows()).isEqualTo(1);
            assertThat(a.openTimers()).isEqualTo(1);
        });
        assertThat(directory.find(query(null, null, true, false, false, null))).singleElement().satisfies(b -> {
            assertThat(b.loadId()).isEqualTo(B);
            assertThat(b.clientId()).isEqualTo("client-b");
            assertThat(b.stage()).as("the stage last set, not the assignment's").isEqualTo("delivered");
            assertThat(b.held()).isTrue();
        });
        assertThat(found(query(null, null, false, true, false, null))).containsExactly(A);
        assertThat(found(query(null, null, false, false, true, null))).containsExactly(A);
        assertThat(found(query(null, "delivered", false, false, false, null))).containsExactly(B);
        assertThat(found(query(null, "dispatched", false, false, false, null))).containsExactly(A);
        assertThat(found(query(null, null, false, false, false, T0))).containsExactly(A, B);
        assertThat(found(query(null, null, false, false, false, T0.plusSeconds(1)))).isEmpty();
    }

    @Test
    void filtersTogetherFindWhatEachFinds() {
        assertThat(found(query("client-b", null, true, false, false, null))).containsExactly(B);
        assertThat(found(query("client-a", null, true, false, false, null))).isEmpty();
        assertThat(found(query("client-a", "dispatched", false, true, false, T0))).containsExactly(A);
        assertThat(found(query(null, "delivered", true, false, false, T0))).containsExactly(B);
    }

    @Test
    void theOverviewCountsAndChartsAndWhatWaits() {
        Instant now = clock.instant();
        PgOverview.Counts counts = new PgOverview(PG.pool()).counts(now);
        assertThat(counts.heldLoads()).isEqualTo(1);
        assertThat(counts.deadLastDay()).isEqualTo(1);
        assertThat(counts.outboxDue()).as("the timer's set_timer row").isEqualTo(1);
        assertThat(counts.timersLate()).isEqualTo(1);

        PgOverview.Activity activity = new PgOverview(PG.pool()).activity(now, Duration.ofMinutes(10), 6);
        assertThat(java.util.Arrays.stream(activity.inbound()).sum()).as("inbound events in the last hour").isEqualTo(3);
        assertThat(java.util.Arrays.stream(activity.dead()).sum()).isEqualTo(1);

        PgWaiting waiting = new PgWaiting(PG.pool());
        assertThat(waiting.due(now, 10)).extracting(PgWaiting.DueRow::loadId).containsExactly(A);
        assertThat(waiting.late(now, PgOverview.TIMER_LATE, 10)).extracting(PgWaiting.LateTimer::loadId).containsExactly(A);
        assertThat(waiting.queued(10)).extracting(PgWaiting.QueuedLoad::loadId).containsExactly(B);
    }
}
