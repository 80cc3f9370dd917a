package dev.loadflow.store.citus;

import dev.loadflow.model.event.MessageSkipped;
import dev.loadflow.store.eventlog.ConcurrencyConflictException;
import dev.loadflow.store.eventlog.DuplicateEntryException;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.queue.PgHeldLoads;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.util.List;

/** Held loads where Citus distributes them: a skip's unique violation, which Citus names not, told apart by the log. */
public class CitusHeldLoads extends PgHeldLoads {

    public CitusHeldLoads(Pool pool, Clock clock) {
        super(pool, clock);
    }

    @Override
    protected RuntimeException unnamed(MessageSkipped skipped, RuntimeException failure) {
        if (!CitusNodes.violatesUnnamed(failure)) {
            return failure;
        }
        if (Pg.await(pool.preparedQuery(LOGGED).execute(Tuple.of(skipped.loadId(), skipped.entryId()))).size() == 1) {
            return new DuplicateEntryException(skipped.loadId(), List.of(skipped.messageId()), failure);
        }
        return new ConcurrencyConflictException(skipped.loadId(), -1, failure);
    }
}
