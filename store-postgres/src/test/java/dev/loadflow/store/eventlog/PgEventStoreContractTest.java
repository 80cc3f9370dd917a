package dev.loadflow.store.eventlog;

import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;

class PgEventStoreContractTest extends EventStoreContract {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("event_store");

    @Override
    protected EventStore eventStore(Clock clock) {
        return new PgEventStore(PG.pool(), clock, PG.wakeups(), PG.database().citus());
    }

    @Override
    protected Outbox outbox(Clock clock) {
        return new PgOutbox(PG.pool(), clock, Duration.ofSeconds(90));
    }

    @Override
    protected boolean batchIsOneTransaction() {
        return !PG.database().citus();
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }
}
