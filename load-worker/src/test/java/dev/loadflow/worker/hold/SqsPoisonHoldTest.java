package dev.loadflow.worker.hold;

import dev.loadflow.store.audit.PgAdminAudit;
import dev.loadflow.store.queue.PgUnrunReceives;
import dev.loadflow.store.queue.QueueBackend;
import dev.loadflow.store.queue.SqsDeadLetters;
import dev.loadflow.store.queue.SqsFifoLoadQueue;
import dev.loadflow.testing.ElasticMq;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.util.UUID;

/**
 * Poison holds its load on SQS FIFO (ElasticMQ): the held head stays in flight, hidden until
 * its recheck, so SQS hands out nothing else of its message group.
 */
class SqsPoisonHoldTest extends PoisonHoldTest {

    @RegisterExtension
    static final ElasticMq SQS = new ElasticMq();

    @Override
    QueueBackend queue(Pool pool, Clock clock) {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String url = SQS.createFifoQueue("hold-" + suffix);
        String deadLetterUrl = SQS.createFifoQueue("hold-dead-" + suffix);
        SqsFifoLoadQueue queue = new SqsFifoLoadQueue(SQS.client(), url, deadLetterUrl, Duration.ofSeconds(30), clock,
                new PgUnrunReceives(pool, clock));
        return new QueueBackend(queue, new SqsDeadLetters(SQS.client(), url, deadLetterUrl, clock, new PgAdminAudit(pool)), queue);
    }

    @Override
    boolean countsWaiting() {
        return false;
    }
}
