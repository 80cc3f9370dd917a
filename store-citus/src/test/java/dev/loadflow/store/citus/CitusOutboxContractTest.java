package dev.loadflow.store.citus;

import dev.loadflow.store.PgStores;
import dev.loadflow.store.outbox.PgOutboxContractTest;
import dev.loadflow.store.pg.Wakeups;

import java.time.Clock;

/** The outbox's contract on a Citus coordinator: {@link PgOutboxContractTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusOutboxContractTest extends PgOutboxContractTest {

    @Override
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new CitusStores(PG.pool(), clock, wakeups);
    }

    /** A claim goes a node at a time: the oldest rows of one node come before older rows of the next. */
    @Override
    protected boolean oldestFirstAcrossLoads() {
        return false;
    }
}
