package dev.loadflow.store.citus;

import dev.loadflow.store.PgStores;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.queue.PgHeldLoadsTest;

import java.time.Clock;

/** Held loads on a Citus coordinator: {@link PgHeldLoadsTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusHeldLoadsTest extends PgHeldLoadsTest {

    @Override
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new CitusStores(PG.pool(), clock, wakeups);
    }
}
