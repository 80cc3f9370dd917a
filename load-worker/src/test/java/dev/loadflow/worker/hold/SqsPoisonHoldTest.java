package dev.loadflow.worker.hold;

import dev.loadflow.store.audit.PgAdminAudit;
import dev.loadflow.store.queue.LoadQueue;
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
    LoadQueue queue(Pool pool, Clock clock) {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        return new SqsFifoLoadQueue(SQS.client(), SQS.createFifoQueue("hold-" + suffix),
                SQS.createFifoQueue("hold-dead-" + suffix), Duration.ofSeconds(30), clock, new PgAdminAudit(pool));
    }

    @Override
    boolean countsWaiting() {
        return false;
    }

    @Override
    int perLoad() {
        return 1;
    }
}
