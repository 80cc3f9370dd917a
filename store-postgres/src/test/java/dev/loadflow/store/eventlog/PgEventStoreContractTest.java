package dev.loadflow.store.eventlog;

import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;

public class PgEventStoreContractTest extends EventStoreContract {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("event_store");

    /** The stores under test: PostgreSQL's (a backend of its own overrides this in its subclass of the suite). */
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new PgStores(PG.pool(), clock, wakeups);
    }

    @Override
    protected EventStore eventStore(Clock clock) {
        return stores(clock, PG.wakeups()).eventStore();
    }

    @Override
    protected Outbox outbox(Clock clock) {
        return new PgOutbox(PG.pool(), clock, Duration.ofSeconds(90));
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }
}
