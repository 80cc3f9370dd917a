package dev.loadflow.store.citus;

import dev.loadflow.store.PgStores;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.timer.PgTimerStoreContractTest;

import java.time.Clock;

/** The timers' contract on a Citus coordinator: {@link PgTimerStoreContractTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusTimerStoreContractTest extends PgTimerStoreContractTest {

    @Override
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new CitusStores(PG.pool(), clock, wakeups);
    }
}
