package dev.loadflow.worker.hold;

import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.PgLoadQueue;
import io.vertx.sqlclient.Pool;

import java.time.Clock;
import java.time.Duration;

/** Poison holds its load on the PostgreSQL queue. */
class PgPoisonHoldTest extends PoisonHoldTest {

    @Override
    LoadQueue queue(Pool pool, Clock clock) {
        return new PgLoadQueue(pool, clock, Duration.ofMinutes(5), PG.notifications().signal(PgNotifications.QUEUE),
                PG.wakeups());
    }

    @Override
    boolean countsWaiting() {
        return true;
    }

    @Override
    int perLoad() {
        return 10;
    }
}
