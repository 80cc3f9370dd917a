package dev.loadflow.store.eventlog;

import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;

class PgEventStoreContractTest extends EventStoreContract {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("event_store");

    @Override
    protected EventStore eventStore(Clock clock) {
        return new PgEventStore(PG.pool(), clock, PG.wakeups(), PG.database().citus());
    }

    @Override
    protected Outbox outbox(Clock clock) {
        return new PgOutbox(PG.pool(), clock, Duration.ofSeconds(90));
    }

    @Override
    protected boolean appendedTogether(String loadA, String loadB) {
        return !PG.database().citus() || PG.database().count("""
                SELECT count(DISTINCT groupid) FROM pg_dist_placement
                WHERE shardid IN (get_shard_id_for_distribution_column('event_log', '%s'),
                                  get_shard_id_for_distribution_column('event_log', '%s'))""".formatted(loadA, loadB)) == 1;
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }
}
