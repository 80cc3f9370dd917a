package dev.loadflow.store.queue;

import dev.loadflow.store.audit.AdminAudit;
import dev.loadflow.testing.ElasticMq;
import dev.loadflow.testing.MemoryAdminAudit;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.util.UUID;

/**
 * The same {@link LoadQueueContract} on SQS FIFO, against ElasticMQ (an SQS-compatible server
 * started from a Maven test dependency). SQS keeps its own clock in whole seconds, so time
 * really passes here and the visibility timeout is 4 seconds.
 */
class SqsFifoLoadQueueContractTest extends LoadQueueContract {

    @RegisterExtension
    static final ElasticMq SQS = new ElasticMq();

    @Override
    protected LoadQueue loadQueue(Clock clock, Duration visibilityTimeout) {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        return new SqsFifoLoadQueue(SQS.client(), SQS.createFifoQueue("load-queue-" + suffix),
                SQS.createFifoQueue("load-queue-dead-" + suffix),
                visibilityTimeout, clock, audits);
    }

    private final MemoryAdminAudit audits = new MemoryAdminAudit();

    @Override
    protected AdminAudit audits() {
        return audits;
    }

    @Override
    protected void reset() {
        // every test gets queues of its own
    }

    @Override
    protected Duration visibility() {
        return Duration.ofSeconds(4);
    }

    @Override
    protected void passTime(Duration duration) {
        clock.advance(duration);
        try {
            Thread.sleep(duration.toMillis() + 100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    protected boolean reportsDuplicateEnqueue() {
        return false;
    }

    @Override
    protected boolean reportsOldestMessageAge() {
        return false;
    }
}
