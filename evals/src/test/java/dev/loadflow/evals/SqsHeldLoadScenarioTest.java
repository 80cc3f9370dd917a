package dev.loadflow.evals;

import dev.loadflow.store.audit.PgAdminAudit;
import dev.loadflow.store.queue.SqsFifoLoadQueue;
import dev.loadflow.testing.ElasticMq;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.UUID;

/** The held-load stories with the load queue on SQS FIFO (ElasticMQ): they end the same. */
class SqsHeldLoadScenarioTest extends HeldLoadScenarioTest {

    @RegisterExtension
    static final ElasticMq SQS = new ElasticMq();

    @Override
    Harness.QueueFactory queues() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        return (pool, clock) -> new SqsFifoLoadQueue(SQS.client(), SQS.createFifoQueue("held-" + suffix),
                SQS.createFifoQueue("held-dead-" + suffix), Duration.ofSeconds(30), clock, new PgAdminAudit(pool));
    }
}
