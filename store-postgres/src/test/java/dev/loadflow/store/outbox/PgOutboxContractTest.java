package dev.loadflow.store.outbox;

import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.audit.AdminAudit;
import dev.loadflow.store.audit.PgAdminAudit;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.testing.PgBackend;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import static dev.loadflow.testing.Fixtures.decision;
import static dev.loadflow.testing.Fixtures.etaAsk;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.testing.Fixtures.outboxRows;
import static dev.loadflow.testing.Fixtures.ping;
import static org.assertj.core.api.Assertions.assertThat;

public class PgOutboxContractTest extends OutboxContract {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("outbox");

    /** The stores under test: PostgreSQL's (a backend of its own overrides this in its subclass of the suite). */
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new PgStores(PG.pool(), clock, wakeups);
    }

    @Override
    protected Outbox outbox(Clock clock, Duration lease) {
        return stores(clock, PG.wakeups()).outbox(lease);
    }

    @Override
    protected EventStore eventStore(Clock clock) {
        return stores(clock, PG.wakeups()).eventStore();
    }

    @Override
    protected AdminAudit audits() {
        return new PgAdminAudit(PG.pool());
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }

    /** {@code load}'s log with a ping and the decision that asked the driver for an ETA; the SMS row's id. */
    private String askedForAnEta(String load) {
        InboundEvent ping = ping(load, "ping_0700", T0);
        List<Action> actions = etaAsk(ping, T0);
        eventStore(clock).append(load, List.of(ping, decision(ping, T0, actions)), 0, outboxRows(load, actions, T0, ping.eventId()));
        return load + "/ask:eta_request:ping_0700/1/send_sms";
    }

    /** A failed attempt names its load (V30), so that on Citus it lives on its row's shard. */
    @Test
    void everyFailedAttemptNamesItsLoad() {
        String load = newLoadId();
        String sms = askedForAnEta(load);
        Outbox outbox = outbox(clock, LEASE);
        OutboxRow row = outbox.pending(10, T0).stream().filter(r -> r.outboxId().equals(sms)).findFirst().orElseThrow();

        outbox.markFailed(sms, row.claimToken(), "retryable: 503", T0.plusSeconds(30));

        assertThat(PG.database().rows("SELECT load_id FROM outbox_failure WHERE outbox_id = ?", sms))
                .singleElement().satisfies(failure -> assertThat(failure).containsEntry("load_id", load));
    }

    /**
     * A row of a channel this process has no kind for (added only to the workers, or by a later
     * release) is read and aged like any other, not a failed read of every row.
     */
    @Test
    void aRowOfAChannelThisProcessDoesNotKnowIsReadAndAged() {
        String load = newLoadId();
        String sms = askedForAnEta(load);
        Pg.await(PG.pool().preparedQuery("UPDATE outbox SET channel = 'telex' WHERE load_id = $1 AND outbox_id = $2")
                .execute(Tuple.of(load, sms)));
        Outbox outbox = outbox(clock, LEASE);

        assertThat(outbox.find(sms).orElseThrow().channel().wire()).isEqualTo("telex");
        assertThat(outbox.oldestPendingByChannel()).extractingFromEntries(e -> e.getKey().wire()).contains("telex");
    }
}
