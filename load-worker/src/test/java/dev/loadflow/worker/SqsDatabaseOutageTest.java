package dev.loadflow.worker;

import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Risk;
import dev.loadflow.service.testing.ElasticMqTestResource;
import dev.loadflow.service.testing.TestCallers;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.QueueMessage;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.testing.Waits.await;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.post;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database goes away while messages wait on SQS FIFO, which counts every receive as a
 * delivery and cannot take one back: the worker stops receiving once a run fails and the
 * database does not answer, so an outage far longer than {@code max-deliveries}' backoff (here 2
 * deliveries, 50 ms apart) leaves the messages it caught to run in order when it returns, not
 * held as poison. The outage lasts until the consumer has asked the database three times in
 * vain (its log says so), whatever the machine's speed.
 */
@QuarkusTest
@TestProfile(SqsDatabaseOutageTest.Profile.class)
@WithTestResource(LateDatabase.class)
@WithTestResource(ElasticMqTestResource.class)
class SqsDatabaseOutageTest {

    static final Path LOG = Path.of("target", "sqs-database-outage-test.log");
    private static final String LOAD = newLoadId();

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.log.file.enabled", "true", "quarkus.log.file.path", LOG.toString(),
                    "loadflow.worker.max-deliveries", "2", "loadflow.worker.retry-delay", "PT0.05S",
                    "loadflow.worker.run-deadline", "PT5S", "loadflow.queue.visibility-timeout", "PT10S");
        }
    }

    @Inject
    LoadQueue queue;

    @Inject
    HeldLoads held;

    @Inject
    Clock clock;

    private static int health(String which) {
        return given().port(LateDatabase.managementPort()).get("/q/health/" + which).then().extract().statusCode();
    }

    @Test
    void messagesCaughtByAnOutageRunInOrderWhenTheDatabaseReturnsNotHeldAsPoison() throws IOException {
        LateDatabase.up();
        await().atMost(Duration.ofSeconds(45)).until(() -> health("ready") == 200);
        assertThat(post(LOAD, assigned("assign_1"))).isEqualTo(202);
        awaitVersion(LOAD, 2);

        LateDatabase.down();
        await().atMost(Duration.ofSeconds(15)).until(() -> health("ready") == 503);
        // what the source sent just before the outage, still queued when it began
        Instant now = clock.instant();
        queue.enqueueAll(IntStream.rangeClosed(1, 3).mapToObj(i -> QueueMessage.of(new InboundEvent("ping_" + i, LOAD,
                now, now, "c-ping_" + i, null, new EventPayload.LocationPing(Risk.LOW, 41.0, -87.0), TestCallers.SOURCE,
                null))).toList());
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(LOG).contains("receiving paused until it does"));
        // the outage goes on, far longer than two deliveries 50 ms apart: the consumer asks the database
        // again, twice, and has no answer
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(LOG).split("load-queue-consumer failed again", -1)
                .length > 2);

        LateDatabase.up();

        await().atMost(Duration.ofSeconds(45)).until(() -> health("ready") == 200);
        List<String> log = awaitVersion(LOAD, 8).getList("log.entryId");
        assertThat(log).containsExactly("assign_1", "dec:assign_1", "ping_1", "dec:ping_1", "ping_2", "dec:ping_2",
                "ping_3", "dec:ping_3");
        assertThat(held.of(LOAD)).as("no message of the load became poison by waiting out the outage").isEmpty();
        assertThat(Files.readString(LOG)).contains("the database answers again: receiving the load queue");
    }
}
