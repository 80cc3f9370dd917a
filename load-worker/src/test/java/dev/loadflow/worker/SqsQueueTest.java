package dev.loadflow.worker;

import dev.loadflow.service.testing.ElasticMqTestResource;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.SqsFifoLoadQueue;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.ping;
import static dev.loadflow.worker.LoadApi.post;
import static org.assertj.core.api.Assertions.assertThat;

/** The same service with loadflow.queue.kind=sqs: ingest, the consumer loop and the log work unchanged. */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
@WithTestResource(ElasticMqTestResource.class)
class SqsQueueTest {

    @Inject
    LoadQueue queue;

    @Test
    void onSqsFifoAnEventIsQueuedConsumedDecidedAndLoggedOnce() {
        assertThat(queue).isInstanceOf(SqsFifoLoadQueue.class);
        String load = newLoadId();

        assertThat(post(load, assigned("assign_1"))).isEqualTo(202);
        assertThat(post(load, ping("ping_0700", "high"))).isEqualTo(202);

        JsonPath view = awaitVersion(load, 4);
        assertThat(view.getList("log.entryId")).containsExactly("assign_1", "dec:assign_1", "ping_0700", "dec:ping_0700");
        assertThat(view.getList("log[3].body.actions.type")).containsExactly("send_sms", "set_timer");
        assertThat(post(load, ping("ping_0700", "high"))).isEqualTo(200);
    }
}
