package dev.loadflow.store.timer;

import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;

class PgTimerStoreContractTest extends TimerStoreContract {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("timers");

    @Override
    protected TimerStore timerStore(Clock clock, Duration claimLease) {
        return new PgTimerStore(PG.pool(), clock, claimLease, PG.wakeups(), null, PG.database().citus());
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }
}
