package dev.loadflow.store.citus;

import dev.loadflow.store.PgStores;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.retention.PgRetentionTest;

import java.time.Clock;

/** Retention on a Citus coordinator: {@link PgRetentionTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusRetentionTest extends PgRetentionTest {

    @Override
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new CitusStores(PG.pool(), clock, wakeups);
    }

    /** The move's marker waits on the worker that holds the load's shard, as an insert of its own. */
    @Override
    protected String movesWaitingOnALock() {
        return "SELECT count(*) FROM citus_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO %event_log%'";
    }
}
