package dev.loadflow.evals;

import dev.loadflow.model.event.Risk;
import dev.loadflow.store.timer.TimerStatus;
import dev.loadflow.testing.ElasticMq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ADR's story with the load queue on SQS FIFO (ElasticMQ, an SQS-compatible server started
 * from a Maven test dependency) instead of PostgreSQL: events, timer firings and action
 * outcomes all travel through SQS, and the story ends exactly as on the default queue.
 */
class SqsQueueScenarioTest extends EvalScenario {

    @RegisterExtension
    static final ElasticMq SQS = new ElasticMq();

    @Override
    Harness.QueueFactory queues() {
        return Harness.sqsQueue(SQS);
    }

    @Test
    void theAskStoryRunsTheSameOnSqsFifo() {
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        // the same ping delivered twice by the telematics provider: SQS dedupes it, the log would too
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();

        expectSmsKeys(key(1, "send_sms"));
        assertThat(logged("ping_0700")).isEqualTo(1);
        assertThat(timer(1).fireAt()).isEqualTo(time("07:31"));

        at("07:31").settle();
        expectSmsKeys(key(1, "send_sms"), key(2, "send_sms"));
        assertThat(logged("evt:tmr:" + LOAD + ":" + ASK + ":1")).as("the timer firing came through SQS").isEqualTo(1);

        at("07:40").driverSays("sms_0740", "ETA 9:30").settle();
        at("08:01").settle();

        assertThat(timer(2).status()).isEqualTo(TimerStatus.CANCELLED);
        expectSmsKeys(key(1, "send_sms"), key(2, "send_sms"));
        assertThat(channels().delivered("slack")).singleElement()
                .satisfies(post -> assertThat(post.body()).contains("ETA 9:30"));
        assertThat(log().entries()).as("every entry once: the same log as on the PostgreSQL queue")
                .extracting(e -> e.entry().entryId()).doesNotHaveDuplicates();
        assertThat(h.queue.receive(10, Duration.ZERO)).as("nothing left in SQS").isEmpty();
    }
}
