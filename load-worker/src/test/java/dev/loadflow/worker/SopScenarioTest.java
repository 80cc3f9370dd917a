package dev.loadflow.worker;

import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.OutcomeStatus;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.QueueMessage;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.outboxIds;
import static dev.loadflow.worker.LoadApi.ping;
import static dev.loadflow.worker.LoadApi.post;
import static dev.loadflow.worker.LoadApi.sms;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SOP of docs/design.md for client A (30 minutes, 3 attempts), driven the way production drives
 * it: senders POST to ingest; the pump and the dispatcher put TimerFired and ActionOutcome on
 * the load queue with their deterministic ids.
 */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class SopScenarioTest {

    private static final AskId ASK = AskId.of("eta_request", "ping_0700");

    @Inject
    LoadQueue queue;

    @Inject
    Pool pool;

    private String openAsk() {
        String load = newLoadId();
        post(load, assigned("assign_1"));
        post(load, ping("ping_0700", "high"));
        awaitVersion(load, 4);
        return load;
    }

    /** What the timer pump publishes when the timer of {@code attempt} comes due. */
    private void fire(String load, int attempt) {
        TimerId timer = TimerId.of(load, ASK, attempt);
        queue.enqueue(QueueMessage.of(InboundEvent.timerFired(timer, Instant.parse("2026-11-30T07:31:00Z"),
                Instant.parse("2026-11-30T07:31:00.100Z"), "c-1")));
    }

    /** What the dispatcher publishes when an outbox row is finished. */
    private void outcome(String load, String outboxId, String actionType, OutcomeStatus status, boolean heroChannel) {
        queue.enqueue(QueueMessage.of(InboundEvent.actionOutcome(load, new EventPayload.ActionOutcome(outboxId,
                actionType, status, status == OutcomeStatus.DELIVERED ? "{\"id\":\"r-1\"}" : null,
                status == OutcomeStatus.FAILED ? "400 invalid number" : null, heroChannel),
                Instant.parse("2026-11-30T07:01:05Z"), "c-1")));
    }

    private static JsonPath lastDecision(JsonPath view) {
        int last = view.getList("log").size() - 1;
        return new JsonPath(view.prettify()).setRootPath("log[" + last + "].body");
    }

    @Test
    void aDriverReplyResolvesTheAskAndTheTimerThenFiringIsAFilteredNoop() {
        String load = openAsk();

        post(load, sms("sms_0710", "ETA 9:30"));
        JsonPath answered = awaitVersion(load, 6);
        JsonPath decision = lastDecision(answered);
        assertThat(decision.getList("actions.type")).containsExactly("cancel_timer", "post_hero_slack");
        assertThat(decision.getList("closedAsks")).containsExactly(ASK.toString());
        assertThat(answered.getList("state.openAsks")).isEmpty();
        assertThat(answered.getList("state.closedAsks")).containsExactly(ASK.toString());

        fire(load, 1);
        JsonPath late = awaitVersion(load, 8);
        JsonPath noop = lastDecision(late);
        assertThat(late.getString("log[6].entryId")).isEqualTo("evt:tmr:" + load + ":" + ASK + ":1");
        assertThat(noop.getBoolean("filtered")).isTrue();
        assertThat(noop.getList("actions")).isEmpty();
        assertThat(noop.getString("reason")).contains("stale timer").contains("not open");
        assertThat(outboxIds(pool, load)).containsExactlyInAnyOrder(
                load + "/" + ASK + "/1/send_sms", load + "/" + ASK + "/1/set_timer",
                load + "/" + ASK + "/1/cancel_timer", load + "/" + ASK + "/1/post_hero_slack");
    }

    @Test
    void eachUnansweredAttemptTakesTheNextStepAndTheThirdCreatesAHeroTask() {
        String load = openAsk();

        fire(load, 1);
        JsonPath second = awaitVersion(load, 6);
        assertThat(lastDecision(second).getList("actions.type")).containsExactly("send_sms", "set_timer");
        assertThat(second.getInt("state.openAsks[0].step")).isEqualTo(2);

        fire(load, 1); // the pump published timer 1 twice (a crash before its mark): the copy is dropped
        fire(load, 2);
        JsonPath third = awaitVersion(load, 8);
        assertThat(third.getList("log.entryId")).doesNotHaveDuplicates();
        assertThat(third.getInt("state.openAsks[0].step")).isEqualTo(3);

        fire(load, 3);
        JsonPath escalated = awaitVersion(load, 10);
        JsonPath decision = lastDecision(escalated);
        assertThat(decision.getList("actions.type")).containsExactly("create_hero_task");
        assertThat(decision.getString("actions[0].urgency")).isEqualTo("urgent");
        assertThat(decision.getBoolean("needsHeroTask")).isTrue();
        assertThat(escalated.getList("state.openAsks")).isEmpty();
        assertThat(outboxIds(pool, load)).containsExactlyInAnyOrder(
                load + "/" + ASK + "/1/send_sms", load + "/" + ASK + "/1/set_timer",
                load + "/" + ASK + "/2/send_sms", load + "/" + ASK + "/2/set_timer",
                load + "/" + ASK + "/3/send_sms", load + "/" + ASK + "/3/set_timer",
                load + "/" + ASK + "/3/create_hero_task");
    }

    @Test
    void aFailedSmsRaisesAnUrgentHeroTaskAndAFailedHeroTaskDoesNot() {
        String load = openAsk();
        String sms = load + "/" + ASK + "/1/send_sms";
        String task = load + "/" + ASK + "/1/create_hero_task";

        outcome(load, load + "/" + ASK + "/1/set_timer", "set_timer", OutcomeStatus.DELIVERED, true);
        JsonPath delivered = awaitVersion(load, 6);
        assertThat(lastDecision(delivered).getBoolean("filtered")).isTrue();
        assertThat(lastDecision(delivered).getString("reason")).startsWith("delivered");

        outcome(load, sms, "send_sms", OutcomeStatus.FAILED, false);
        JsonPath failed = awaitVersion(load, 8);
        JsonPath decision = lastDecision(failed);
        assertThat(decision.getList("actions.type")).containsExactly("create_hero_task");
        assertThat(decision.getString("actions[0].urgency")).isEqualTo("urgent");
        assertThat(failed.getString("log[6].entryId")).isEqualTo("out:" + sms + ":failed");

        outcome(load, task, "create_hero_task", OutcomeStatus.FAILED, true);
        JsonPath heroDown = awaitVersion(load, 10);
        JsonPath noop = lastDecision(heroDown);
        assertThat(noop.getBoolean("filtered")).isTrue();
        assertThat(noop.getBoolean("needsHeroTask")).isFalse();
        assertThat(noop.getString("reason")).contains("OpsAlert");
        assertThat(outboxIds(pool, load)).containsOnlyOnce(task).hasSize(3);
    }

    @Test
    void aLowRiskPingAndASecondHighRiskPingOpenNoNewAsk() {
        String load = openAsk();

        post(load, ping("ping_0705", "low"));
        post(load, ping("ping_0710", "high"));
        JsonPath view = awaitVersion(load, 8);

        assertThat(view.getList("log.entryId")).containsSubsequence("ping_0705", "dec:ping_0705", "ping_0710", "dec:ping_0710");
        assertThat(view.getString("log[5].body.reason")).isEqualTo("low-risk ping");
        assertThat(view.getString("log[7].body.reason")).contains("ETA ask " + ASK + " is open");
        assertThat(outboxIds(pool, load)).hasSize(2);
    }

    private static String assignedTo(String eventId, String client, String stage) {
        return """
                {"eventId": "%s", "type": "LoadAssigned", "occurredAt": "2026-11-30T08:15:00Z",
                 "payload": {"clientId": "%s", "driverPhone": "+15550100", "stage": "%s"}}""".formatted(eventId, client, stage);
    }

    @Test
    void aStageChangeUpdatesTheStageAndIsToldToEachOfTheClientsWebhooks() {
        String load = newLoadId();
        post(load, assignedTo("assign_1", "client-b", "dispatched"));
        post(load, assignedTo("assign_2", "client-b", "dispatched"));
        post(load, assignedTo("assign_3", "client-b", "in_transit"));
        JsonPath view = awaitVersion(load, 6);

        assertThat(view.getString("log[1].body.reason")).contains("stage dispatched");
        assertThat(view.getList("log[3].body.actions")).as("the same stage again changes nothing").isEmpty();
        assertThat(view.getString("log[5].body.reason")).contains("dispatched -> in_transit").contains("2 webhook(s)");
        assertThat(view.getString("state.stage")).isEqualTo("in_transit");
        String changed = load + "/evt:assign_3/1/stage_changed";
        assertThat(outboxIds(pool, load)).containsExactlyInAnyOrder(load + "/evt:assign_3/1/update_stage", changed);
        JsonPath payload = new JsonPath(LoadApi.payload(pool, changed));
        assertThat(payload.getString("stage")).isEqualTo("in_transit");
        assertThat(payload.getString("at")).isEqualTo("2026-11-30T08:15:00Z");
        assertThat(payload.getList("webhooks")).containsExactly("http://127.0.0.1:9/crm/stages",
                "http://127.0.0.1:9/billing/stages");
        assertThat(payload.getString("clientId")).as("whose secret signs them").isEqualTo("client-b");
    }

    @Test
    void aClientWithoutStageWebhooksGetsOnlyTheStageUpdate() {
        String load = newLoadId();
        post(load, assigned("assign_1"));
        post(load, assignedTo("assign_2", "client-a", "at_pickup"));
        awaitVersion(load, 4);

        assertThat(outboxIds(pool, load)).containsExactly(load + "/evt:assign_2/1/update_stage");
    }
}
