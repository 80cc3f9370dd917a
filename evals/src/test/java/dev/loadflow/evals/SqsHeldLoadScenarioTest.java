package dev.loadflow.evals;

import dev.loadflow.testing.ElasticMq;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The held-load stories with the load queue on SQS FIFO (ElasticMQ): they end the same. */
class SqsHeldLoadScenarioTest extends HeldLoadScenarioTest {

    @RegisterExtension
    static final ElasticMq SQS = new ElasticMq();

    @Override
    Harness.QueueFactory queues() {
        return Harness.sqsQueue(SQS);
    }
}
