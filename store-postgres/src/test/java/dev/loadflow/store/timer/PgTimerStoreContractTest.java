package dev.loadflow.store.timer;

import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.PgStores;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;

public class PgTimerStoreContractTest extends TimerStoreContract {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("timers");

    /** The stores under test: PostgreSQL's (a backend of its own overrides this in its subclass of the suite). */
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new PgStores(PG.pool(), clock, wakeups);
    }

    @Override
    protected TimerStore timerStore(Clock clock, Duration claimLease) {
        return stores(clock, PG.wakeups()).timers(claimLease, null);
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }
}
