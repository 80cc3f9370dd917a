package dev.loadflow.store.queue;

import java.time.Clock;
import dev.loadflow.store.PgStores;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.MessageSkipped;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.eventlog.DuplicateEntryException;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code held_load} on PostgreSQL: an operator's change, its log entry and its audit row are all or nothing. */
public class PgHeldLoadsTest {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("held_loads");

    /** The stores under test: PostgreSQL's (a backend of its own overrides this in its subclass of the suite). */
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new PgStores(PG.pool(), clock, wakeups);
    }

    private static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");

    private final FakeClock clock = FakeClock.at(T0);
    private PgHeldLoads held;
    private PgEventStore events;

    @BeforeEach
    void setUp() {
        PG.database().truncateAll();
        held = stores(clock, Wakeups.NONE).heldLoads();
        events = stores(clock, Wakeups.NONE).eventStore();
    }

    private static AuditRecord audit(String action) {
        return new AuditRecord("otto", "load-worker", action, "L-1", "{}");
    }

    private long auditRows() {
        return PG.database().count("SELECT count(*) FROM admin_audit");
    }

    @Test
    void holdingAgainAtTheSameHeadKeepsWhenTheHoldBeganAndANewHeadStartsAfresh() {
        held.hold(HeldLoad.held("L-1", "m-1", "LoadAssigned", "delivered 11 times", T0));
        clock.advance(Duration.ofMinutes(5));
        held.hold(HeldLoad.held("L-1", "m-1", "LoadAssigned", "retry failed: boom", clock.instant()));

        assertThat(held.among(List.of("L-1", "L-2"))).containsOnlyKeys("L-1");
        HeldLoad again = held.among(List.of("L-1")).get("L-1");
        assertThat(again.since()).isEqualTo(T0);
        assertThat(again.reason()).isEqualTo("retry failed: boom");

        held.hold(HeldLoad.held("L-1", "m-2", "InboundSms", "unreadable", clock.instant()));
        assertThat(held.count()).isEqualTo(1);
        assertThat(held.list(10)).singleElement().satisfies(h -> {
            assertThat(h.messageId()).isEqualTo("m-2");
            assertThat(h.since()).isEqualTo(T0.plus(Duration.ofMinutes(5)));
        });
    }

    @Test
    void holdsAreFoundByWhenTheyBeganAndTheHeadsTypeAndThoseBeingSkippedAreNotCounted() {
        held.hold(HeldLoad.held("L-1", "m-1", "LoadAssigned", "boom", T0));
        held.hold(HeldLoad.held("L-2", "m-2", "unreadable", "unreadable message", T0.plus(Duration.ofHours(1))));
        held.hold(HeldLoad.held("L-3", "m-3", "unreadable", "unreadable message", T0.plus(Duration.ofHours(2))));
        held.skip(new MessageSkipped("m-3", "L-3", "unreadable", T0, "otto", "garbled"), audit("load.skip"));
        HeldLoads.Filter fromTheSecondHour = new HeldLoads.Filter(T0.plus(Duration.ofHours(1)), null, null);
        HeldLoads.Filter theFirstHour = new HeldLoads.Filter(T0, T0.plus(Duration.ofHours(1)), null);
        HeldLoads.Filter unreadable = new HeldLoads.Filter(null, null, "unreadable");

        assertThat(held.list(fromTheSecondHour, 10)).extracting(HeldLoad::loadId).containsExactly("L-2", "L-3");
        assertThat(held.count(fromTheSecondHour)).as("L-3 is being skipped").isEqualTo(1);
        assertThat(held.list(theFirstHour, 10)).extracting(HeldLoad::loadId).containsExactly("L-1");
        assertThat(held.list(unreadable, 1)).extracting(HeldLoad::loadId).containsExactly("L-2");
        assertThat(held.count(HeldLoads.Filter.ALL)).isEqualTo(2);
        assertThatThrownBy(() -> new HeldLoads.Filter(T0, T0, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRetryIsAuditedAndAnUnheldLoadWritesNothing() {
        held.hold(HeldLoad.held("L-1", "m-1", "LoadAssigned", "boom", T0));
        held.handedBack("L-1", "m-1", "handle-1");

        HeldLoads.Changed changed = held.retry("L-1", audit("load.retry")).orElseThrow();

        assertThat(changed.held().state()).isEqualTo(HeldLoad.State.RETRY);
        assertThat(changed.held().receiptHandle()).isEqualTo("handle-1");
        assertThat(PG.database().rows("SELECT action, result::text AS result FROM admin_audit WHERE id = ?", changed.auditId()))
                .singleElement().satisfies(row -> {
                    assertThat(row.get("action")).isEqualTo("load.retry");
                    assertThat((String) row.get("result")).contains("\"messageId\": \"m-1\"");
                });
        assertThat(held.retry("L-2", audit("load.retry"))).isEmpty();
        assertThat(auditRows()).isEqualTo(1);
    }

    @Test
    void aSkipLogsItsEntryAfterTheLoadsLastAndCountsTheMessageProcessed() {
        events.append("L-1", List.of(event("e-1")), 0, List.of());
        held.hold(HeldLoad.held("L-1", "m-1", "InboundSms", "boom", T0));

        HeldLoads.Changed changed = held.skip(new MessageSkipped("m-1", "L-1", "InboundSms", T0, "otto", "resent"),
                audit("load.skip")).orElseThrow();

        assertThat(changed.held().state()).isEqualTo(HeldLoad.State.SKIPPED);
        assertThat(held.count()).as("a load being skipped is no longer waiting for anyone").isZero();
        List<RecordedEntry> log = events.read("L-1").entries();
        assertThat(log).extracting(RecordedEntry::seq).containsExactly(1L, 2L);
        assertThat(log.get(1).entry()).isEqualTo(new MessageSkipped("m-1", "L-1", "InboundSms", T0, "otto", "resent"));
        assertThat(LoadState.project(events.read("L-1")).hasProcessed("m-1")).isTrue();
        assertThat(held.skip(new MessageSkipped("m-1", "L-1", "InboundSms", T0, "otto", "twice"), audit("load.skip")))
                .as("being skipped already").isEmpty();
        assertThat(auditRows()).isEqualTo(1);
    }

    @Test
    void holdingTheHeadAgainAsItIsSkippedLeavesItSkipped() {
        events.append("L-1", List.of(event("e-1")), 0, List.of());
        held.hold(HeldLoad.held("L-1", "m-1", "unreadable", "unreadable message", T0));
        held.skip(new MessageSkipped("m-1", "L-1", "unreadable", T0, "otto", "a broken producer"), audit("load.skip"))
                .orElseThrow();

        // the consumer read the hold before the skip and holds the unreadable head again after it
        held.hold(HeldLoad.held("L-1", "m-1", "unreadable", "unreadable message", T0.plusSeconds(2)));

        assertThat(held.among(List.of("L-1")).get("L-1").state()).as("the operator's skip stands")
                .isEqualTo(HeldLoad.State.SKIPPED);
        held.hold(HeldLoad.held("L-1", "m-2", "InboundSms", "boom", T0.plusSeconds(3)));
        assertThat(held.among(List.of("L-1")).get("L-1").state()).as("a new head is held afresh").isEqualTo(HeldLoad.State.HELD);
    }

    @Test
    void aSkipOfAHeadThatWasProcessedMeanwhileWritesNothing() {
        held.hold(HeldLoad.held("L-1", "m-1", "InboundSms", "boom", T0));
        events.append("L-1", List.of(event("m-1")), 0, List.of());

        assertThatThrownBy(() -> held.skip(new MessageSkipped("m-1", "L-1", "InboundSms", T0, "otto", "late"),
                audit("load.skip"))).isInstanceOf(DuplicateEntryException.class);

        assertThat(held.among(List.of("L-1")).get("L-1").state()).isEqualTo(HeldLoad.State.HELD);
        assertThat(events.read("L-1").version()).isEqualTo(1);
        assertThat(auditRows()).isZero();
    }

    private static InboundEvent event(String id) {
        return new InboundEvent(id, "L-1", T0, T0, "c-1", null, new EventPayload.InboundSms("+15550100", "hi"));
    }
}
