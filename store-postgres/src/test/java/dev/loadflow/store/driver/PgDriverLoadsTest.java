package dev.loadflow.store.driver;

import java.time.Clock;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static dev.loadflow.testing.Fixtures.decision;
import static org.assertj.core.api.Assertions.assertThat;

/** A driver's number leads to the load it drives now, and never through an assignment its load refused. */
public class PgDriverLoadsTest {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("drivers");

    /** The stores under test: PostgreSQL's (a backend of its own overrides this in its subclass of the suite). */
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new PgStores(PG.pool(), clock, wakeups);
    }

    private static final String DRIVER = "+15550100";
    private final FakeClock clock = FakeClock.at(Instant.parse("2026-11-30T06:00:00Z"));
    private PgEventStore events;
    private PgDriverLoads drivers;

    @BeforeEach
    void setUp() {
        PG.database().truncateAll();
        events = stores(clock, Wakeups.NONE).eventStore();
        drivers = new PgDriverLoads(PG.pool());
    }

    private void assign(String loadId, String eventId, String source, String phone) {
        clock.advance(Duration.ofMinutes(1));
        InboundEvent event = new InboundEvent(eventId, loadId, clock.instant(), clock.instant(), "c-1", null,
                new EventPayload.LoadAssigned("client-a", phone, "dispatched"), source);
        events.append(loadId, List.of(event, decision(event, clock.instant(), List.of())), events.read(loadId).version(),
                List.of());
    }

    private java.util.List<String> loadsOf(String phone) {
        return drivers.currentLoadsOf(phone).stream().map(PgDriverLoads.Assignment::loadId).toList();
    }

    @Test
    void theAssignmentsALoadTookRouteTheNumberAndNoneItRefused() {
        assign("load-1", "a1", "tms-north", DRIVER);
        assertThat(loadsOf(DRIVER)).containsExactly("load-1");

        assign("load-2", "a2", "tms-north", "+15550111");
        assign("load-2", "a2-rival", "tms-south", DRIVER);
        assertThat(loadsOf(DRIVER)).as("an assignment load-2 refused does not take the number")
                .containsExactly("load-1");

        assign("load-1", "a1-rival", "tms-south", "+15550122");
        assertThat(loadsOf(DRIVER)).as("nor does one load-1 refused move it away").containsExactly("load-1");

        assign("load-1", "a1-again", "tms-north", "+15550133");
        assertThat(loadsOf(DRIVER)).as("the owner's re-assignment to another driver does").isEmpty();
        assertThat(loadsOf("+15550133")).containsExactly("load-1");

        assign("load-3", "a3", "tms-south", "+15550133");
        assertThat(drivers.currentLoadsOf("+15550133")).as("a driver's loads, the most recently assigned first, with their clients")
                .containsExactly(new PgDriverLoads.Assignment("load-3", "client-a"), new PgDriverLoads.Assignment("load-1", "client-a"));
    }
}
