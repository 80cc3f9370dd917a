package dev.loadflow.store.citus;

import dev.loadflow.store.PgStores;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.queue.PgLoadQueueContractTest;

import java.time.Clock;

/** The queue's contract, beside a distributed log on a Citus coordinator: {@link PgLoadQueueContractTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusLoadQueueContractTest extends PgLoadQueueContractTest {

    @Override
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new CitusStores(PG.pool(), clock, wakeups);
    }
}
