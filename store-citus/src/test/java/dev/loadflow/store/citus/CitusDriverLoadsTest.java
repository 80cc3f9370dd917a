package dev.loadflow.store.citus;

import dev.loadflow.store.PgStores;
import dev.loadflow.store.driver.PgDriverLoadsTest;
import dev.loadflow.store.pg.Wakeups;

import java.time.Clock;

/** A driver's loads on a Citus coordinator: {@link PgDriverLoadsTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusDriverLoadsTest extends PgDriverLoadsTest {

    @Override
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new CitusStores(PG.pool(), clock, wakeups);
    }
}
