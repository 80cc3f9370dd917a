package dev.loadflow.store.outbox;

import dev.loadflow.store.audit.AdminAudit;
import dev.loadflow.store.audit.PgAdminAudit;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;

class PgOutboxContractTest extends OutboxContract {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("outbox");

    @Override
    protected Outbox outbox(Clock clock, Duration lease) {
        return new PgOutbox(PG.pool(), clock, lease);
    }

    @Override
    protected EventStore eventStore(Clock clock) {
        return new PgEventStore(PG.pool(), clock, PG.wakeups());
    }

    @Override
    protected AdminAudit audits() {
        return new PgAdminAudit(PG.pool());
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }
}
