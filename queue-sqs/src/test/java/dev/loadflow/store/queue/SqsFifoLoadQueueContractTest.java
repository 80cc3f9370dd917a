package dev.loadflow.store.queue;

import dev.loadflow.store.audit.AdminAudit;
import dev.loadflow.store.audit.AuditEntry;
import dev.loadflow.store.audit.AuditQuery;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.testing.ElasticMq;
import dev.loadflow.testing.MemoryAdminAudit;
import dev.loadflow.testing.MemoryUnrunReceives;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.exception.SdkException;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The same {@link LoadQueueContract} on SQS FIFO, against ElasticMQ (an SQS-compatible server
 * started from a Maven test dependency). SQS keeps its own clock in whole seconds, so time
 * really passes here and the visibility timeout is 4 seconds.
 */
class SqsFifoLoadQueueContractTest extends LoadQueueContract {

    @RegisterExtension
    static final ElasticMq SQS = new ElasticMq();

    @Override
    protected QueueBackend backend(Clock clock, Duration visibilityTimeout) {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        return backend(SQS.createFifoQueue("load-queue-" + suffix), SQS.createFifoQueue("load-queue-dead-" + suffix),
                visibilityTimeout);
    }

    private QueueBackend backend(String url, String deadLetterUrl, Duration visibilityTimeout) {
        SqsFifoLoadQueue queue = new SqsFifoLoadQueue(SQS.client(), url, deadLetterUrl, visibilityTimeout, clock, unrun);
        return new QueueBackend(queue, new SqsDeadLetters(SQS.client(), url, deadLetterUrl, clock, audits), queue);
    }

    private final MemoryAdminAudit audits = new MemoryAdminAudit();
    private final MemoryUnrunReceives unrun = new MemoryUnrunReceives();

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

    @Test
    void statsAgeTheQueueFromWhatItHandsOut() {
        SqsFifoLoadQueue queue = (SqsFifoLoadQueue) backend(clock, visibility()).queue();
        String load = newLoadId();
        queue.enqueue(new QueueMessage(load, "a", "{}"));
        queue.enqueue(new QueueMessage(load, "b", "{}"));
        assertThat(queue.stats().oldestEnqueuedAt()).as("nothing received yet: the queue cannot say").isEmpty();

        clock.advance(Duration.ofSeconds(40));
        ReceivedMessage a = queue.receive(1, Duration.ofSeconds(1)).getFirst();
        clock.advance(Duration.ofSeconds(5));
        assertThat(queue.stats().oldestEnqueuedAt()).as("in flight since T0").contains(T0);

        queue.ack(a.receiptHandle());
        assertThat(queue.stats().oldestEnqueuedAt()).as("b waits; a had waited 40 s when received")
                .contains(T0.plusSeconds(45).minusSeconds(40));

        clock.advance(SqsFifoLoadQueue.WAIT_WINDOW);
        assertThat(queue.stats().oldestEnqueuedAt()).as("that wait is past the window").isEmpty();

        ReceivedMessage b = queue.receive(1, Duration.ofSeconds(1)).getFirst();
        queue.ack(b.receiptHandle());
        assertThat(queue.stats()).isEqualTo(new QueueStats(0, Optional.empty()));
    }

    /** SQS shares no transaction with the audit: the redrive's row is written before the change, and a failure adds one. */
    @Test
    void aRedriveThatFailsHalfwayLeavesItsAuditRowAndOneSayingItFailed() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String main = SQS.createFifoQueue("load-queue-" + suffix);
        QueueBackend backend = backend(main, SQS.createFifoQueue("load-queue-dead-" + suffix), visibility());
        LoadQueue queue = backend.queue();
        String load = newLoadId();
        queue.enqueue(new QueueMessage(load, "poison", "{}"));
        assertThat(queue.park(queue.receive(1, Duration.ofSeconds(1)).getFirst().receiptHandle(), "bad payload")).isTrue();
        SQS.client().deleteQueue(b -> b.queueUrl(main));

        AuditRecord redrive = new AuditRecord("otto", "load-worker", "queue.redrive", load + "/poison", "{}");
        assertThatThrownBy(() -> backend.deadLetters().redrive(load, "poison", redrive)).isInstanceOf(SdkException.class);

        assertThat(audits.list(new AuditQuery(null, "otto", 0, 10))).extracting(AuditEntry::result).hasSize(2)
                .anySatisfy(result -> assertThat(result).isEqualTo("{\"redriven\": true}"))
                .anySatisfy(result -> assertThat(result).startsWith("{\"redriven\":false,\"error\":"));
    }
}
