package dev.loadflow.store.citus;

import dev.loadflow.store.PgStores;
import dev.loadflow.store.overview.PgConsoleQueriesTest;
import dev.loadflow.store.pg.Wakeups;

import java.time.Clock;

/** The console's queries on a Citus coordinator: {@link PgConsoleQueriesTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusConsoleQueriesTest extends PgConsoleQueriesTest {

    @Override
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new CitusStores(PG.pool(), clock, wakeups);
    }
}
