package dev.loadflow.worker;

import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.QueueMessage;
import dev.loadflow.store.retention.PgRetention;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;

/**
 * With on-poison=skip, poison is parked: operators see the parked messages and re-drive them,
 * with the admin token only.
 */
@QuarkusTest
@TestProfile(QueueAdminTest.OnPoisonSkip.class)
@WithTestResource(PostgresTestResource.class)
class QueueAdminTest {

    public static class OnPoisonSkip implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("loadflow.worker.on-poison", "skip");
        }
    }

    private static final String TOKEN = "worker-test-token";

    @Inject
    LoadQueue queue;

    @Inject
    PgRetention retention;

    @Inject
    Clock clock;

    @Test
    void aParkedMessageIsListedAndRedrivenWithTheAdminToken() {
        String load = newLoadId();
        queue.enqueue(new QueueMessage(load, "garbled", "{\"eventId\": \"garbled\"}"));

        await().atMost(Duration.ofSeconds(20)).until(() -> given().auth().oauth2(TOKEN).get("/admin/queue/dead")
                .then().extract().jsonPath().getList("parked.messageId").contains("garbled"));

        given().get("/admin/queue/dead").then().statusCode(401);
        given().auth().oauth2(TOKEN).get("/admin/queue/dead")
                .then().statusCode(200)
                .body("parked.loadId", hasItem(load))
                .body("parked.find { it.messageId == 'garbled' }.reason", is("unreadable message: type: missing"));
        given().auth().oauth2(TOKEN).queryParam("loadId", load).queryParam("messageId", "garbled")
                .post("/admin/queue/dead/redrive")
                .then().statusCode(200).body("redriven", is(true)).body("auditId", notNullValue());
        assertThat(PostgresTestResource.current().rows(
                "SELECT principal, action FROM admin_audit WHERE target = ?", load + "/garbled"))
                .as("the re-drive is in the trail with who made it").singleElement()
                .satisfies(row -> {
                    assertThat(row.get("principal")).isEqualTo("admin-token");
                    assertThat(row.get("action")).isEqualTo("queue.redrive");
                });
        given().auth().oauth2(TOKEN).queryParam("loadId", load).queryParam("messageId", "never-parked")
                .post("/admin/queue/dead/redrive")
                .then().statusCode(404).contentType("application/problem+json");
        assertThat(PostgresTestResource.current().rows("SELECT id FROM admin_audit WHERE target = ?", load + "/never-parked"))
                .as("a re-drive that found nothing left no row").isEmpty();
        given().auth().oauth2(TOKEN).queryParam("limit", 0).get("/admin/queue/dead").then().statusCode(400);
    }

    @Test
    void aParkedMessageHandledAnotherWayIsAcknowledgedWithAReasonAndOnlyThenMayRetentionDeleteIt() {
        String load = newLoadId();
        queue.enqueue(new QueueMessage(load, "garbled", "{\"eventId\": \"garbled\"}"));
        await().atMost(Duration.ofSeconds(20)).until(() -> given().auth().oauth2(TOKEN).get("/admin/queue/dead")
                .then().extract().jsonPath().getList("parked.messageId").contains("garbled"));
        Instant muchLater = Instant.now(clock).plus(Duration.ofDays(400));
        retention.pruneParkedMessages(muchLater, 500);
        assertThat(parked(load)).as("nobody handled it: kept however old").isOne();

        given().auth().oauth2(TOKEN).queryParam("loadId", load).queryParam("messageId", "garbled")
                .contentType("application/json").body("{}").post("/admin/queue/dead/acknowledge")
                .then().statusCode(400).contentType("application/problem+json").body("field", is("reason"));
        given().auth().oauth2(TOKEN).queryParam("loadId", load).queryParam("messageId", "garbled")
                .contentType("application/json")
                .body("{\"reason\": \"the telematics vendor resent it fixed, https://hooks.slack.com/services/T1/B2/pastedS3cret\"}")
                .post("/admin/queue/dead/acknowledge")
                .then().statusCode(200).body("acknowledged", is(true));
        given().auth().oauth2(TOKEN).queryParam("loadId", load).queryParam("messageId", "garbled")
                .contentType("application/json").body("{\"reason\": \"again\"}").post("/admin/queue/dead/acknowledge")
                .then().statusCode(409);
        given().auth().oauth2(TOKEN).get("/admin/queue/dead")
                .then().statusCode(200).body("parked.find { it.loadId == '" + load + "' }.acknowledgedAt", notNullValue());
        assertThat(PostgresTestResource.current().rows(
                "SELECT action, params->>'reason' AS reason FROM admin_audit WHERE target = ?", load + "/garbled"))
                .singleElement().satisfies(row -> {
                    assertThat(row.get("action")).isEqualTo("queue.acknowledge");
                    assertThat(row.get("reason")).as("a credential pasted into a reason is not kept in the trail")
                            .isEqualTo("the telematics vendor resent it fixed, https://hooks.slack.com/***");
                });

        retention.pruneParkedMessages(Instant.now(clock).minus(Duration.ofMinutes(1)), 500);
        assertThat(parked(load)).as("acknowledged after the cutoff (the period not yet passed since)").isOne();
        retention.pruneParkedMessages(muchLater, 500);
        assertThat(parked(load)).isZero();
    }

    private static long parked(String load) {
        return PostgresTestResource.current().count("SELECT count(*) FROM load_queue_dead WHERE load_id = '" + load + "'");
    }
}
