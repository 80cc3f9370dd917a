package dev.loadflow.worker.hold;

import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.queue.PgDeadLetters;
import dev.loadflow.store.queue.PgQueueView;
import dev.loadflow.store.queue.QueueBackend;
import dev.loadflow.store.queue.PgLoadQueue;
import io.vertx.sqlclient.Pool;

import java.time.Clock;
import java.time.Duration;

/** Poison holds its load on the PostgreSQL queue. */
class PgPoisonHoldTest extends PoisonHoldTest {

    @Override
    QueueBackend queue(Pool pool, Clock clock) {
        return new QueueBackend(new PgLoadQueue(pool, clock, Duration.ofMinutes(5), PG.notifications().signal(PgNotifications.QUEUE),
                PG.wakeups()), new PgDeadLetters(pool, clock, PG.wakeups()), new PgQueueView(pool));
    }

    @Override
    boolean countsWaiting() {
        return true;
    }
}
