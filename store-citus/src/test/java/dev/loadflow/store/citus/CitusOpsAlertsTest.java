package dev.loadflow.store.citus;

import dev.loadflow.store.PgStores;
import dev.loadflow.store.alert.PgOpsAlertsTest;
import dev.loadflow.store.pg.Wakeups;

import java.time.Clock;

/** Ops alerts on a Citus coordinator: {@link PgOpsAlertsTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusOpsAlertsTest extends PgOpsAlertsTest {

    @Override
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new CitusStores(PG.pool(), clock, wakeups);
    }
}
