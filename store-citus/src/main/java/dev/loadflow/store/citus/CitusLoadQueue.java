package dev.loadflow.store.citus;

import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.WakeupSignal;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.queue.PgLoadQueue;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The load queue beside a log Citus distributes. The queue's tables stay on the coordinator (a
 * receive locks the visible groups of every load at once, which Citus cannot do across shards; a
 * message lives seconds, so the queue stays small), so an ingest cannot look into the log from
 * its statement: it asks the log first which of its events are logged
 * ({@link EventStore#contains(List, List)}, on the shards of its loads only), then queues the
 * others ({@link #ENQUEUE_ALL_FLAGGED}). An event logged between the two is queued and then
 * found logged by its run, as an event logged right after the one statement is on one PostgreSQL.
 */
public class CitusLoadQueue extends PgLoadQueue {

    /** {@code ENQUEUE_ALL_UNLESS_LOGGED} with each message's {@code logged} given ($5). */
    static final String ENQUEUE_ALL_FLAGGED = """
            WITH msg AS MATERIALIZED (
                SELECT m.load_id, m.message_id, m.body, m.ord, m.logged
                FROM unnest($1::text[], $2::text[], $3::text[], $5::bool[]) WITH ORDINALITY
                     AS m(load_id, message_id, body, logged, ord)),
            """ + ENQUEUE_FROM_MSG;

    public CitusLoadQueue(Pool pool, Clock clock, Duration visibilityTimeout, WakeupSignal wakeup, Wakeups wakeups) {
        super(pool, clock, visibilityTimeout, wakeup, wakeups);
    }

    @Override
    protected RowSet<Row> enqueue(Tuple params, EventStore events) {
        String[] loads = params.getArrayOfStrings(0);
        String[] ids = params.getArrayOfStrings(1);
        List<Boolean> logged = events.contains(Arrays.asList(loads), Arrays.asList(ids));
        return Pg.await(pool.preparedQuery(ENQUEUE_ALL_FLAGGED).execute(params.addArrayOfBoolean(logged.toArray(Boolean[]::new))));
    }
}
