package dev.loadflow.worker;

import dev.loadflow.service.testing.PostgresTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.service.testing.Management.probe;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.post;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * A worker (re)started while its link to PostgreSQL is silent, as a pod rescheduled during a
 * network partition: it comes up live and not ready, stays so while the link is silent, and is
 * ready within 10 s of the link's return.
 */
@QuarkusTest
@WithTestResource(value = PostgresTestResource.class, initArgs = @ResourceArg(name = PostgresTestResource.LINK, value = "stalled"))
class StartDuringStallTest {

    @Test
    void aWorkerStartedDuringAStallIsReadyWithinTenSecondsOfTheLinksReturn() {
        await().atMost(Duration.ofSeconds(10)).until(() -> probe("live") == 200);
        // a readiness probe during the stall fails (503, or no answer within the probe's 5 s)
        await().during(Duration.ofSeconds(12)).atMost(Duration.ofSeconds(40))
                .until(() -> probe("live") == 200 && probe("ready") != 200);

        PostgresTestResource.link().heal();

        long healed = System.nanoTime();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> probe("ready") == 200);
        System.out.printf("started during a stall: ready %d ms after the link's return%n",
                Duration.ofNanos(System.nanoTime() - healed).toMillis());
        String load = newLoadId();
        assertThat(post(load, assigned("assign_1"))).isEqualTo(202);
        awaitVersion(load, 2);
    }
}
