package dev.loadflow.store.queue;

import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;

class PgLoadQueueContractTest extends LoadQueueContract {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("load_queue");

    @Override
    protected LoadQueue loadQueue(Clock clock, Duration visibilityTimeout) {
        return new PgLoadQueue(PG.pool(), clock, visibilityTimeout, PG.notifications().signal(PgNotifications.QUEUE), PG.wakeups());
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }
}
