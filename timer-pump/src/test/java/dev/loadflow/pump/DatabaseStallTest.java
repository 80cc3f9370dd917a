package dev.loadflow.pump;

import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.store.timer.TimerStatus;
import dev.loadflow.store.timer.TimerStore;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Clock;
import java.time.Duration;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.service.testing.Management.probe;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * The pump's link to PostgreSQL goes silent or is cut while timers fall due: the pump stays
 * live, is ready again within 10 s of the link's return, and fires what fell due meanwhile,
 * once. The timers are scheduled straight in the database, not through the pump's link, as the
 * dispatcher on a link of its own would.
 */
@QuarkusTest
@WithTestResource(value = PostgresTestResource.class, initArgs = @ResourceArg(name = PostgresTestResource.LINK, value = "flowing"))
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DatabaseStallTest {

    private static final Duration RECOVERY = Duration.ofSeconds(10);
    private static final AskId ASK = AskId.of("eta_request", "ping_0700");

    private static Pool dispatchersPool;
    private static TimerStore dispatchers;

    @Inject
    Vertx vertx;

    @Inject
    Clock clock;

    @AfterAll
    static void closeTheDispatchersPool() {
        if (dispatchersPool != null) {
            dispatchersPool.close();
            dispatchersPool = null;
            dispatchers = null;
        }
    }

    /** The timers as the dispatcher schedules them: straight to the database, not through the pump's link. */
    private TimerStore dispatchers() {
        if (dispatchers == null) {
            dispatchersPool = PostgresTestResource.current().pool(vertx, 1);
            dispatchers = new PgStores(dispatchersPool, clock, Wakeups.NONE)
                    .timers(Duration.ofSeconds(30), Duration.ofSeconds(1));
        }
        return dispatchers;
    }

    /** How many TimerFired messages of {@code id} are queued, read straight from the database. */
    private static long fired(TimerId id) {
        return PostgresTestResource.current().count("SELECT count(*) FROM load_queue WHERE message_id = 'evt:" + id + "'");
    }

    private TimerId dueSoon() {
        TimerId id = TimerId.of(newLoadId(), ASK, 1);
        assertThat(dispatchers().schedule(Timer.schedule(id, clock.instant().plusMillis(300), "c-1"))).isTrue();
        return id;
    }

    @Test
    @Order(1)
    void aStalledLinkLeavesThePumpLiveAndATimerDueMeanwhileFiresOnceAfterIt() {
        await().atMost(Duration.ofSeconds(30)).until(() -> probe("ready") == 200);

        PostgresTestResource.link().stall();
        await().atMost(Duration.ofSeconds(20)).until(() -> probe("ready") != 200);
        TimerId id = dueSoon();
        await().alias("nothing fires while the link is silent").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> fired(id) == 0);
        assertThat(probe("live")).as("a database fault never fails liveness").isEqualTo(200);

        PostgresTestResource.link().heal();

        long healed = System.nanoTime();
        await().atMost(RECOVERY).pollInterval(Duration.ofMillis(200)).until(() -> probe("ready") == 200);
        System.out.printf("pump ready %d ms after the link's recovery%n", Duration.ofNanos(System.nanoTime() - healed).toMillis());
        await().atMost(Duration.ofSeconds(30)).until(() -> fired(id) == 1);
        // The pump publishes TimerFired, then marks the timer fired, in a statement of its own.
        await().alias("the timer is marked fired after its message is queued").atMost(Duration.ofSeconds(10))
                .until(() -> dispatchers().find(id).orElseThrow().status() == TimerStatus.FIRED);
        assertThat(fired(id)).as("fired once").isEqualTo(1);
    }

    @Test
    @Order(2)
    void everyConnectionCutAtOnceLeavesThePumpReadyAndFiringWithinTenSeconds() {
        await().atMost(Duration.ofSeconds(30)).until(() -> probe("ready") == 200);

        PostgresTestResource.link().reset();
        TimerId id = dueSoon();

        long cut = System.nanoTime();
        await().atMost(RECOVERY).pollInterval(Duration.ofMillis(200)).until(() -> probe("ready") == 200);
        System.out.printf("pump ready %d ms after every connection was cut%n", Duration.ofNanos(System.nanoTime() - cut).toMillis());
        assertThat(probe("live")).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> fired(id) == 1);
    }
}
