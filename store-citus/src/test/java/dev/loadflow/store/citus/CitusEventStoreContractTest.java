package dev.loadflow.store.citus;

import dev.loadflow.store.PgStores;
import dev.loadflow.store.eventlog.PgEventStoreContractTest;
import dev.loadflow.store.pg.Wakeups;

import java.time.Clock;

/** The event log's contract on a Citus coordinator: {@link PgEventStoreContractTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusEventStoreContractTest extends PgEventStoreContractTest {

    @Override
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new CitusStores(PG.pool(), clock, wakeups);
    }

    /** Two loads are appended in one transaction only when their shards lie on one node. */
    @Override
    protected boolean appendedTogether(String loadA, String loadB) {
        return PG.database().count("""
                SELECT count(DISTINCT groupid) FROM pg_dist_placement
                WHERE shardid IN (get_shard_id_for_distribution_column('event_log', '%s'),
                                  get_shard_id_for_distribution_column('event_log', '%s'))""".formatted(loadA, loadB)) == 1;
    }
}
