package dev.loadflow.pump;

import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.testing.TestCallers;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.store.timer.TimerStatus;
import dev.loadflow.store.timer.TimerStore;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;

import static dev.loadflow.service.testing.Management.management;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

/** The running pump service: timers fire on their own, cancelled ones never, and operators can look. */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class TimerPumpServiceTest {

    private static final AskId ASK = AskId.of("eta_request", "ping_0700");

    @Inject
    TimerStore timers;

    @Inject
    Pool pool;

    @Inject
    Clock clock;

    private String queuedBody(String load, String messageId) {
        var rows = Pg.await(pool.preparedQuery("SELECT body::text AS body FROM load_queue WHERE load_id = $1 AND message_id = $2")
                .execute(Tuple.of(load, messageId)));
        return rows.size() == 0 ? null : rows.iterator().next().getString("body");
    }

    @Test
    void aDueTimerIsPublishedAsTimerFiredThenMarkedFired() {
        String load = newLoadId();
        TimerId id = TimerId.of(load, ASK, 1);

        timers.schedule(Timer.schedule(id, clock.instant().plusMillis(300), "c-1"));

        await().atMost(Duration.ofSeconds(10)).until(() -> timers.find(id).orElseThrow().status() == TimerStatus.FIRED);
        String body = queuedBody(load, "evt:" + id);
        assertThat(body).contains("\"type\": \"TimerFired\"").contains("\"attempt\": 1").contains("\"correlationId\": \"c-1\"");
        Timer fired = timers.find(id).orElseThrow();
        assertThat(fired.firedAt()).isAfterOrEqualTo(fired.fireAt());
        String metrics = management().get("/q/metrics").then().statusCode(200).extract().asString();
        assertThat(metrics).containsPattern("loadflow_pump_fired_total [1-9]")
                .contains("loadflow_pump_lateness_seconds_bucket")
                .contains("loadflow_pump_due_backlog")
                .contains("loadflow_pump_last_pass_timestamp_seconds");
    }

    @Test
    void aTimerCancelledBeforeItIsDueNeverFires() throws InterruptedException {
        String load = newLoadId();
        TimerId cancelled = TimerId.of(load, ASK, 1);
        TimerId control = TimerId.of(load, ASK, 2);
        timers.schedule(Timer.schedule(cancelled, clock.instant().plusMillis(500), "c-1"));
        timers.cancel(cancelled, clock.instant());
        timers.schedule(Timer.schedule(control, clock.instant().plusMillis(800), "c-1"));

        await().atMost(Duration.ofSeconds(10)).until(() -> timers.find(control).orElseThrow().status() == TimerStatus.FIRED);

        assertThat(timers.find(cancelled).orElseThrow().status()).isEqualTo(TimerStatus.CANCELLED);
        assertThat(queuedBody(load, "evt:" + cancelled)).isNull();
    }

    @Test
    void operatorsSeeALoadsTimersWithTheAdminToken() {
        String load = newLoadId();
        TimerId id = TimerId.of(load, ASK, 1);
        assertThat(timers.schedule(Timer.schedule(id, clock.instant().plus(Duration.ofHours(1)), "c-1"))).isTrue();
        assertThat(timers.schedule(Timer.schedule(id, clock.instant().plus(Duration.ofHours(2)), "c-1"))).isFalse();

        given().queryParam("loadId", load).get("/admin/timers").then().statusCode(401);
        given().auth().oauth2("pump-test-token").queryParam("loadId", load).get("/admin/timers")
                .then().statusCode(200)
                .body("timers", hasSize(1))
                .body("timers[0].timerId", is(id.toString()))
                .body("timers[0].status", is("scheduled"));
        given().auth().oauth2("pump-test-token").get("/admin/timers").then().statusCode(400);
        given().auth().oauth2(TestCallers.viewer()).queryParam("loadId", load).get("/admin/timers")
                .then().statusCode(200).body("timers", hasSize(1));
        given().auth().oauth2(TestCallers.operator()).queryParam("loadId", load).get("/admin/timers")
                .then().statusCode(200).body("timers", hasSize(1));
        given().auth().oauth2(TestCallers.INGEST_TOKEN).queryParam("loadId", load).get("/admin/timers")
                .then().statusCode(403).contentType("application/problem+json");
        given().get("/q/metrics").then().statusCode(404);
        management().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'timer-pump' }.status", is("UP"));
    }
}
