package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.json.EventCodec;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.testing.TestCallers;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxMessage;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.store.retention.PgRetention;
import dev.loadflow.store.timer.TimerStatus;
import dev.loadflow.store.timer.TimerStore;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static dev.loadflow.service.testing.Management.management;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.loadflow.dispatcher.Staging.awaitStatus;
import static dev.loadflow.dispatcher.Staging.count;
import static dev.loadflow.dispatcher.Staging.queued;
import static dev.loadflow.dispatcher.Staging.smsId;
import static dev.loadflow.dispatcher.WireMockChannels.ADMIN_TOKEN;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.loadflow.testing.Waits.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;

/** The dispatcher against real PostgreSQL and a real HTTP server standing in for each channel. */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
@WithTestResource(WireMockChannels.class)
class DispatchTest {

    @Inject
    EventStore events;

    @Inject
    Outbox outbox;

    @Inject
    TimerStore timers;

    @Inject
    Pool pool;

    @Inject
    Clock clock;

    @Inject
    PgRetention retention;

    private final WireMockServer wiremock = WireMockChannels.server();

    private void smsAnswers(String load, int status, String body) {
        wiremock.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(smsId(load)))
                .willReturn(aResponse().withStatus(status).withBody(body)));
    }

    private static EventPayload.ActionOutcome outcome(String json) {
        InboundEvent event = EventCodec.decode(json);
        return (EventPayload.ActionOutcome) event.payload();
    }

    @Test
    void aPendingSmsReachesTheSmsServiceWithItsKeyIsMarkedWithTheReceiptAndItsOutcomeIsQueued() {
        String load = newLoadId();
        smsAnswers(load, 201, "{\"messageId\":\"m-42\"}");
        Instant decidedAt = clock.instant();

        Staging.etaAsk(events, load, decidedAt);

        OutboxRow sms = awaitStatus(outbox, smsId(load), OutboxStatus.DISPATCHED);
        assertThat(sms.receipt()).isEqualTo("{\"messageId\":\"m-42\"}");
        assertThat(sms.attempts()).isEqualTo(1);
        wiremock.verify(1, postRequestedFor(urlEqualTo("/sms/messages"))
                .withHeader("Idempotency-Key", equalTo(smsId(load)))
                .withRequestBody(equalToJson("{\"to\":\"+15550100\",\"text\":\"ETA?\"}")));
        String delivered = queued(pool, load, "out:" + smsId(load) + ":delivered");
        assertThat(delivered).isNotNull();
        assertThat(outcome(delivered).receipt()).isEqualTo("{\"messageId\":\"m-42\"}");
        assertThat(outcome(delivered).heroChannel()).isFalse();

        // set_timer is internal: applied to the timer store, outcome queued too
        String timerRow = load + "/" + Staging.ASK + "/1/set_timer";
        awaitStatus(outbox, timerRow, OutboxStatus.DISPATCHED);
        assertThat(timers.find(TimerId.of(load, Staging.ASK, 1))).hasValueSatisfying(t -> {
            assertThat(t.status()).isEqualTo(TimerStatus.SCHEDULED);
            assertThat(t.fireAt()).isEqualTo(decidedAt.plus(Duration.ofMinutes(30)));
        });
        assertThat(queued(pool, load, "out:" + timerRow + ":delivered")).isNotNull();
    }

    @Test
    void internalCancelAndStageActionsAreAppliedInTheDatabase() {
        String load = newLoadId();
        TimerId timer = TimerId.of(load, Staging.ASK, 1);
        Staging.decide(events, load, List.of(new Action.CancelTimer(timer),
                new Action.UpdateStage(Staging.ASK.toString(), 1, "at_pickup")), clock.instant());

        awaitStatus(outbox, load + "/" + Staging.ASK + "/1/cancel_timer", OutboxStatus.DISPATCHED);
        awaitStatus(outbox, load + "/" + Staging.ASK + "/1/update_stage", OutboxStatus.DISPATCHED);

        assertThat(timers.find(timer).orElseThrow().status()).as("a cancel before its schedule").isEqualTo(TimerStatus.CANCELLED);
        assertThat(count(pool, "SELECT count(*) FROM load_stage WHERE load_id = $1 AND stage = 'at_pickup'", load)).isEqualTo(1);
    }

    @Test
    void fiveHundredAndThreesUntilTheBudgetIsSpentParkTheRowAndPublishAFailedOutcome() {
        String load = newLoadId();
        smsAnswers(load, 503, "provider down");

        Staging.etaAsk(events, load, clock.instant());

        OutboxRow dead = awaitStatus(outbox, smsId(load), OutboxStatus.DEAD);
        assertThat(dead.attempts()).isGreaterThanOrEqualTo(3);
        assertThat(dead.lastFailure()).contains("retry budget").contains("503");
        assertThat(outbox.failures(smsId(load))).hasSize(dead.attempts()).last().satisfies(f -> assertThat(f.parked()).isTrue());
        String failed = queued(pool, load, "out:" + smsId(load) + ":failed");
        assertThat(failed).isNotNull();
        assertThat(outcome(failed).heroChannel()).as("an SMS is external: the agent escalates").isFalse();
        assertThat(count(pool, "SELECT count(*) FROM ops_alert WHERE load_id = $1", load)).isZero();
        wiremock.verify(dead.attempts(), postRequestedFor(urlEqualTo("/sms/messages"))
                .withHeader("Idempotency-Key", equalTo(smsId(load))));
    }

    @Test
    void aFourHundredParksTheRowAtOnce() {
        String load = newLoadId();
        smsAnswers(load, 400, "{\"error\":\"invalid number\"}");

        Staging.etaAsk(events, load, clock.instant());

        OutboxRow dead = awaitStatus(outbox, smsId(load), OutboxStatus.DEAD);
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.lastFailure()).startsWith("permanent: 400");
        assertThat(queued(pool, load, "out:" + smsId(load) + ":failed")).isNotNull();
    }

    @Test
    void retryAfterIsHonoured() {
        String load = newLoadId();
        wiremock.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(smsId(load)))
                .inScenario(load).whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(429).withHeader("Retry-After", "1")).willSetStateTo("ok"));
        wiremock.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(smsId(load)))
                .inScenario(load).whenScenarioStateIs("ok").willReturn(aResponse().withStatus(200).withBody("ok")));

        Staging.etaAsk(events, load, clock.instant());

        OutboxRow sms = awaitStatus(outbox, smsId(load), OutboxStatus.DISPATCHED);
        Instant failedAt = outbox.failures(smsId(load)).get(0).failedAt();
        assertThat(sms.attempts()).isEqualTo(2);
        assertThat(sms.dispatchedAt()).isAfterOrEqualTo(failedAt.plusSeconds(1));
    }

    @Test
    void aDeadHeroTaskRaisesAnOpsAlertAndNeverAnotherHeroTask() {
        String load = newLoadId();
        String task = load + "/" + Staging.ASK + "/3/create_hero_task";
        wiremock.stubFor(post(urlEqualTo("/hero/tasks")).withHeader("Idempotency-Key", equalTo(task))
                .willReturn(aResponse().withStatus(422).withBody("title too long")));

        Staging.heroTask(events, load, clock.instant());

        awaitStatus(outbox, task, OutboxStatus.DEAD);
        String failed = queued(pool, load, "out:" + task + ":failed");
        assertThat(outcome(failed).heroChannel()).isTrue();
        assertThat(count(pool, "SELECT count(*) FROM ops_alert WHERE outbox_id = $1 AND kind = 'action_dead'", task)).isEqualTo(1);
        assertThat(count(pool, "SELECT count(*) FROM outbox WHERE load_id = $1", load)).as("no new Hero task row").isEqualTo(1);
        wiremock.verify(1, postRequestedFor(urlEqualTo("/hero/tasks")).withHeader("Idempotency-Key", equalTo(task)));
        given().auth().oauth2(ADMIN_TOKEN).get("/admin/alerts")
                .then().statusCode(200).body("alerts.outboxId", hasItem(task)).body("alerts.kind", hasItem("action_dead"));
        String metrics = management().get("/q/metrics").then().extract().asString();
        assertThat(metrics).containsPattern("loadflow_ops_alerts_total\\{kind=\"action_dead\"\\} [1-9]");
    }

    /**
     * A dead row and its alert stay until an operator acknowledged them, however old; once
     * acknowledged (audited, with a reason) and the period has passed since, retention writes
     * them to the export directory and deletes them.
     */
    @Test
    void aDeadRowAndItsAlertStayUntilAcknowledgedAndAreExportedBeforeRetentionDeletesThem() throws Exception {
        String load = newLoadId();
        String task = load + "/" + Staging.ASK + "/3/create_hero_task";
        wiremock.stubFor(post(urlEqualTo("/hero/tasks")).withHeader("Idempotency-Key", equalTo(task))
                .willReturn(aResponse().withStatus(422).withBody("title too long")));
        Staging.heroTask(events, load, clock.instant());
        awaitStatus(outbox, task, OutboxStatus.DEAD);
        long alert = count(pool, "SELECT id AS count FROM ops_alert WHERE outbox_id = $1", task);
        Instant muchLater = clock.instant().plus(Duration.ofDays(400));

        retention.pruneDeadOutbox(muchLater, 500);
        retention.pruneAlerts(muchLater, 500);
        assertThat(outbox.find(task)).as("nobody handled it: kept however old").isPresent();
        assertThat(count(pool, "SELECT count(*) FROM ops_alert WHERE outbox_id = $1", task)).isOne();

        String encoded = encoded(task);
        given().urlEncodingEnabled(false).auth().oauth2(TestCallers.viewer()).contentType("application/json")
                .body(Map.of("reason", "x")).post("/admin/outbox/" + encoded + "/acknowledge").then().statusCode(403);
        given().urlEncodingEnabled(false).auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(Map.of("reason", " ")).post("/admin/outbox/" + encoded + "/acknowledge").then().statusCode(400)
                .contentType("application/problem+json").body("field", is("reason"));
        given().urlEncodingEnabled(false).auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(Map.of("reason", "called\u0000")).post("/admin/outbox/" + encoded + "/acknowledge").then().statusCode(400)
                .contentType("application/problem+json").body("field", is("reason"));
        given().urlEncodingEnabled(false).auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(Map.of("reason", "x".repeat(300 * 1024))).post("/admin/outbox/" + encoded + "/acknowledge")
                .then().statusCode(413);
        given().urlEncodingEnabled(false).auth().oauth2(TestCallers.viewer()).get("/admin/outbox/dead?loadId=" + load + "%00")
                .then().statusCode(400).contentType("application/problem+json").body("field", is("loadId"));
        given().urlEncodingEnabled(false).auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(Map.of("reason", "desk called the driver by hand")).post("/admin/outbox/" + encoded + "/acknowledge")
                .then().statusCode(200).body("acknowledged", is(true));
        given().urlEncodingEnabled(false).auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(Map.of("reason", "again")).post("/admin/outbox/" + encoded + "/acknowledge").then().statusCode(409);
        given().auth().oauth2(TestCallers.operator()).contentType("application/json").body(Map.of("reason", "again"))
                .post("/admin/alerts/" + alert + "/acknowledge").then().statusCode(409)
                .body("detail", is("no alert " + alert + " waiting for an acknowledgement"));
        given().auth().oauth2(TestCallers.viewer()).queryParam("loadId", load).get("/admin/outbox/dead")
                .then().statusCode(200).body("rows[0].status", is("dead")).body("rows[0].acknowledgedAt", notNullValue());
        JsonPath trail = given().auth().oauth2(TestCallers.viewer()).queryParam("size", 500).get("/admin/audit")
                .then().statusCode(200).extract().jsonPath();
        assertThat(trail.getString("entries.find { it.target == '" + task + "' }.action")).isEqualTo("outbox.acknowledge");
        assertThat(trail.getString("entries.find { it.target == '" + task + "' }.params.reason"))
                .isEqualTo("desk called the driver by hand");
        assertThat(trail.getInt("entries.find { it.target == '" + task + "' }.result.alerts")).isOne();

        retention.pruneDeadOutbox(clock.instant().minus(Duration.ofMinutes(1)), 500);
        assertThat(outbox.find(task)).as("acknowledged after the cutoff (the period not yet passed since)").isPresent();
        retention.pruneDeadOutbox(muchLater, 500);
        retention.pruneAlerts(muchLater, 500);
        assertThat(outbox.find(task)).isEmpty();
        assertThat(count(pool, "SELECT count(*) FROM ops_alert WHERE outbox_id = $1", task)).isZero();

        String exported;
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of("target/retention-export"))) {
            StringBuilder all = new StringBuilder();
            for (java.nio.file.Path file : files.toList()) {
                all.append(java.nio.file.Files.readString(file));
            }
            exported = all.toString();
        }
        assertThat(exported.lines().filter(line -> line.contains("\"outbox_id\": \"" + task + "\"")))
                .as("the row with its failures, and its alert").hasSize(2)
                .anySatisfy(line -> assertThat(line).contains("\"failures\": [{").contains("title too long"));
    }

    @Test
    void aReplayThroughTheAdminApiSendsAParkedRowAgainWithTheSameKey() {
        String load = newLoadId();
        deadSms(load, "invalid number");
        String encoded = encoded(smsId(load));

        given().urlEncodingEnabled(false).get("/admin/outbox/" + encoded).then().statusCode(401).header("WWW-Authenticate", "Bearer realm=\"loadflow\"");
        given().urlEncodingEnabled(false).auth().oauth2("wrong").post("/admin/outbox/" + encoded + "/replay").then().statusCode(401);
        given().auth().oauth2(ADMIN_TOKEN).queryParam("loadId", load).get("/admin/outbox/dead")
                .then().statusCode(200).body("rows.outboxId", hasItem(smsId(load)));
        given().urlEncodingEnabled(false).auth().oauth2(ADMIN_TOKEN).get("/admin/outbox/" + encoded)
                .then().statusCode(200).body("status", is("dead")).body("failures[0].failure", is("permanent: 400: invalid number"));

        smsAnswers(load, 200, "fixed");
        given().urlEncodingEnabled(false).auth().oauth2(ADMIN_TOKEN).post("/admin/outbox/" + encoded + "/replay")
                .then().statusCode(200).body("replayed", is(1));

        OutboxRow sent = awaitStatus(outbox, smsId(load), OutboxStatus.DISPATCHED);
        assertThat(sent.receipt()).isEqualTo("fixed");
        wiremock.verify(2, postRequestedFor(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(smsId(load))));
        given().urlEncodingEnabled(false).auth().oauth2(ADMIN_TOKEN).post("/admin/outbox/" + encoded + "/replay").then().statusCode(409);
        given().auth().oauth2(TestCallers.operator()).queryParam("loadId", load).queryParam("limit", 10)
                .post("/admin/outbox/replay").then().statusCode(200).body("replayed", is(0));

        // each change is in the trail with who made it; the refused replay (409) left no row
        JsonPath trail = given().auth().oauth2(TestCallers.viewer()).queryParam("size", 500).get("/admin/audit")
                .then().statusCode(200).extract().jsonPath();
        assertThat(trail.getList("entries.findAll { it.target == '" + smsId(load) + "' }.principal"))
                .containsExactly("admin-token");
        assertThat(trail.getInt("entries.find { it.target == '" + smsId(load) + "' }.result.replayed")).isEqualTo(1);
        assertThat(trail.getString("entries.find { it.target == '" + smsId(load) + "' }.action")).isEqualTo("outbox.replay");
        assertThat(trail.getString("entries.find { it.params.loadId == '" + load + "' }.principal")).isEqualTo("otto");
        assertThat(trail.getInt("entries.find { it.params.loadId == '" + load + "' }.result.replayed")).isZero();
        given().auth().oauth2(TestCallers.viewer()).queryParam("principal", "otto").get("/admin/audit")
                .then().statusCode(200).body("entries.principal", everyItem(is("otto")));
        given().auth().oauth2(ADMIN_TOKEN).queryParam("since", "yesterday").get("/admin/outbox/dead")
                .then().statusCode(400).contentType("application/problem+json")
                .body("detail", is("since must be an ISO-8601 instant, got 'yesterday'"));
    }

    /**
     * Slack's incoming webhooks keep no idempotency key (the test's Slack channel says
     * {@code dedupes=false}): a post whose answer is lost is never sent again
     * blind. It is parked as ambiguous, on-call is paged, and an operator resolves it: marked
     * delivered (its delivered outcome reaches the load) or sent again. Both audited.
     */
    @Test
    void aLostAnswerOnAChannelWithoutIdempotencyWaitsForAnOperatorsResolution() {
        String load = newLoadId();
        Instant now = clock.instant();
        Action.PostHeroSlack seen = new Action.PostHeroSlack("driver_reply:sms_0710", 1, "#hero", "Driver: ETA 9:30");
        Action.PostHeroSlack lost = new Action.PostHeroSlack("driver_reply:sms_0720", 1, "#hero", "Driver: running late");
        String seenId = OutboxMessage.of(load, seen, now, "c", "e").outboxId();
        String lostId = OutboxMessage.of(load, lost, now, "c", "e").outboxId();
        for (String id : List.of(seenId, lostId)) {
            // the post is taken, and the connection reset before its answer
            wiremock.stubFor(post(urlEqualTo("/slack")).withHeader("Idempotency-Key", equalTo(id))
                    .willReturn(aResponse().withFault(com.github.tomakehurst.wiremock.http.Fault.CONNECTION_RESET_BY_PEER)));
        }
        Staging.decide(events, load, List.of(seen, lost), now);

        awaitStatus(outbox, seenId, OutboxStatus.AMBIGUOUS);
        awaitStatus(outbox, lostId, OutboxStatus.AMBIGUOUS);
        wiremock.verify(1, postRequestedFor(urlEqualTo("/slack")).withHeader("Idempotency-Key", equalTo(seenId)));
        given().auth().oauth2(TestCallers.viewer()).get("/admin/outbox/ambiguous").then().statusCode(200)
                .body("rows.outboxId", hasItem(seenId)).body("rows.find { it.outboxId == '" + seenId + "' }.status", is("ambiguous"));
        given().auth().oauth2(TestCallers.viewer()).queryParam("size", 500).get("/admin/alerts").then().statusCode(200)
                .body("alerts.find { it.outboxId == '" + seenId + "' }.kind", is("action_ambiguous"));

        String seenPath = "/admin/outbox/" + encoded(seenId) + "/resolve";
        given().urlEncodingEnabled(false).auth().oauth2(TestCallers.viewer()).contentType("application/json")
                .body(Map.of("as", "delivered", "reason", "x")).post(seenPath).then().statusCode(403);
        given().urlEncodingEnabled(false).auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(Map.of("as", "sent", "reason", "x")).post(seenPath).then().statusCode(400)
                .contentType("application/problem+json");
        given().urlEncodingEnabled(false).auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(Map.of("as", "delivered", "reason", "the post is in #hero at 07:10")).post(seenPath)
                .then().statusCode(200).body("as", is("delivered"));
        OutboxRow marked = outbox.find(seenId).orElseThrow();
        assertThat(marked.status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(marked.receipt()).isEqualTo("marked delivered by otto: the post is in #hero at 07:10");
        assertThat(outcome(queued(pool, load, "out:" + seenId + ":delivered")).receipt()).isEqualTo(marked.receipt());
        given().urlEncodingEnabled(false).auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(Map.of("as", "resend", "reason", "again")).post(seenPath).then().statusCode(409);

        wiremock.stubFor(post(urlEqualTo("/slack")).withHeader("Idempotency-Key", equalTo(lostId))
                .willReturn(aResponse().withStatus(200).withBody("ok")));
        given().urlEncodingEnabled(false).auth().oauth2(TestCallers.operator()).contentType("application/json")
                .body(Map.of("as", "resend", "reason", "not in #hero")).post("/admin/outbox/" + encoded(lostId) + "/resolve")
                .then().statusCode(200);
        assertThat(awaitStatus(outbox, lostId, OutboxStatus.DISPATCHED).receipt()).isEqualTo("ok");
        wiremock.verify(2, postRequestedFor(urlEqualTo("/slack")).withHeader("Idempotency-Key", equalTo(lostId)));

        JsonPath trail = given().auth().oauth2(TestCallers.viewer()).queryParam("size", 500).get("/admin/audit")
                .then().statusCode(200).extract().jsonPath();
        assertThat(trail.getList("entries.findAll { it.action == 'outbox.resolve' && it.target.startsWith('" + load
                + "') }.params.as", String.class)).containsExactlyInAnyOrder("delivered", "resend");
    }

    @Test
    void aStageChangeReachesEachWebhookOnceAndOnlyTheFailingOneIsRetried() {
        String load = newLoadId();
        String id = load + "/evt:assigned_1/1/stage_changed";
        String base = WireMockChannels.server().baseUrl();
        Instant at = Instant.parse("2026-11-30T06:55:00Z");
        String body = "{\"loadId\":\"" + load + "\",\"stage\":\"in_transit\",\"at\":\"" + at + "\"}";
        wiremock.stubFor(post(urlEqualTo("/crm")).withHeader("Idempotency-Key", equalTo(id))
                .willReturn(aResponse().withStatus(204)));
        wiremock.stubFor(post(urlEqualTo("/billing")).withHeader("Idempotency-Key", equalTo(id))
                .inScenario(id).whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(503)).willSetStateTo("up"));
        wiremock.stubFor(post(urlEqualTo("/billing")).withHeader("Idempotency-Key", equalTo(id))
                .inScenario(id).whenScenarioStateIs("up").willReturn(aResponse().withStatus(200)));

        Staging.decide(events, load, List.of(new Action.StageChanged("evt:assigned_1", 1, "in_transit", at,
                List.of(URI.create(base + "/crm"), URI.create(base + "/billing")))), clock.instant());

        OutboxRow done = awaitStatus(outbox, id, OutboxStatus.DISPATCHED);
        assertThat(done.attempts()).isEqualTo(2);
        wiremock.verify(1, postRequestedFor(urlEqualTo("/crm")).withHeader("Idempotency-Key", equalTo(id))
                .withRequestBody(equalToJson(body)));
        wiremock.verify(2, postRequestedFor(urlEqualTo("/billing")).withHeader("Idempotency-Key", equalTo(id))
                .withRequestBody(equalToJson(body)).withoutHeader("webhook-signature"));
        assertThat(count(pool, "SELECT count(*) FROM processed_event WHERE event_id = $1", id)).isEqualTo(2);
        assertThat(queued(pool, load, "out:" + id + ":delivered")).as("its outcome goes to the load's log").isNotNull();
    }

    /** The client's receiver checks the signature with a Standard Webhooks library, as a client would. */
    @Test
    void aClientsStageWebhookIsSignedAsTheStandardWebhooksSpecificationHasIt() throws Exception {
        String load = newLoadId();
        String id = load + "/evt:assigned_1/1/stage_changed";
        String base = WireMockChannels.server().baseUrl();
        wiremock.stubFor(post(urlEqualTo("/crm")).withHeader("Idempotency-Key", equalTo(id)).willReturn(aResponse().withStatus(204)));

        Staging.decide(events, load, List.of(new Action.StageChanged("evt:assigned_1", 1, "in_transit",
                Instant.parse("2026-11-30T06:55:00Z"), List.of(URI.create(base + "/crm")), "client-b")), clock.instant());

        awaitStatus(outbox, id, OutboxStatus.DISPATCHED);
        LoggedRequest sent = wiremock.findAll(postRequestedFor(urlEqualTo("/crm")).withHeader("Idempotency-Key", equalTo(id)))
                .getFirst();
        Map<String, List<String>> headers = Map.of(
                "webhook-id", List.of(sent.getHeader("webhook-id")),
                "webhook-timestamp", List.of(sent.getHeader("webhook-timestamp")),
                "webhook-signature", List.of(sent.getHeader("webhook-signature")));
        assertThat(sent.getHeader("webhook-id")).isEqualTo(id);
        assertThat(sent.getHeader("webhook-signature")).startsWith("v1,");
        new Webhook(WireMockChannels.CLIENT_B_SECRET).verify(sent.getBodyAsString(), headers);
        assertThatThrownBy(() -> new Webhook(WireMockChannels.CLIENT_B_SECRET)
                .verify(sent.getBodyAsString().replace("in_transit", "delivered"), headers))
                .as("a body changed on the way").isInstanceOf(WebhookVerificationException.class);
    }

    @Test
    void aWebhookThatRefusesParksTheRowOnlyAfterEveryOtherWebhookWasTried() {
        String load = newLoadId();
        String id = load + "/evt:assigned_1/1/stage_changed";
        String base = WireMockChannels.server().baseUrl();
        wiremock.stubFor(post(urlEqualTo("/crm")).withHeader("Idempotency-Key", equalTo(id))
                .willReturn(aResponse().withStatus(410).withBody("gone")));
        wiremock.stubFor(post(urlEqualTo("/billing")).withHeader("Idempotency-Key", equalTo(id))
                .willReturn(aResponse().withStatus(204)));

        Staging.decide(events, load, List.of(new Action.StageChanged("evt:assigned_1", 1, "in_transit",
                Instant.parse("2026-11-30T06:55:00Z"), List.of(URI.create(base + "/crm"), URI.create(base + "/billing")))),
                clock.instant());

        OutboxRow dead = awaitStatus(outbox, id, OutboxStatus.DEAD);
        assertThat(dead.lastFailure()).contains(base + "/crm: 410: gone");
        wiremock.verify(1, postRequestedFor(urlEqualTo("/billing")).withHeader("Idempotency-Key", equalTo(id)));
        assertThat(count(pool, "SELECT count(*) FROM processed_event WHERE event_id = $1", id))
                .as("billing has it; a replay tries only the CRM again").isOne();
    }

    /**
     * One receiver refuses for good while another fails for a moment: the row is not parked with
     * the refusal while the other may still take it; the failing receiver is tried again until it
     * has the change, and only then is the row parked, naming the one that refused.
     */
    @Test
    void aWebhookFailingForAMomentIsRetriedThoughAnotherRefusedForGood() {
        String load = newLoadId();
        String id = load + "/evt:assigned_1/1/stage_changed";
        String base = WireMockChannels.server().baseUrl();
        wiremock.stubFor(post(urlEqualTo("/crm")).withHeader("Idempotency-Key", equalTo(id))
                .willReturn(aResponse().withStatus(410).withBody("gone")));
        wiremock.stubFor(post(urlEqualTo("/billing")).withHeader("Idempotency-Key", equalTo(id))
                .inScenario(id).whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(503)).willSetStateTo("up"));
        wiremock.stubFor(post(urlEqualTo("/billing")).withHeader("Idempotency-Key", equalTo(id))
                .inScenario(id).whenScenarioStateIs("up").willReturn(aResponse().withStatus(204)));

        Staging.decide(events, load, List.of(new Action.StageChanged("evt:assigned_1", 1, "in_transit",
                Instant.parse("2026-11-30T06:55:00Z"), List.of(URI.create(base + "/crm"), URI.create(base + "/billing")))),
                clock.instant());

        OutboxRow dead = awaitStatus(outbox, id, OutboxStatus.DEAD);
        assertThat(dead.lastFailure()).contains(base + "/crm: 410: gone").doesNotContain("/billing");
        wiremock.verify(2, postRequestedFor(urlEqualTo("/billing")).withHeader("Idempotency-Key", equalTo(id)));
        assertThat(count(pool, "SELECT count(*) FROM processed_event WHERE event_id = $1 AND handler_name = $2", id,
                base + "/billing")).as("the receiver that failed for a moment has it").isOne();
    }

    @Test
    void aRowWhosePayloadCannotBeReadIsParkedWithTheReasonAndNothingIsSent() {
        String load = newLoadId();
        String id = smsId(load);
        Instant now = clock.instant();
        InboundEvent ping = new InboundEvent("ping_0700", load, now, now, "c-1", null,
                new EventPayload.LocationPing(dev.loadflow.model.event.Risk.HIGH, 1, 1));
        // an SMS row without its "to": sending it would text nobody
        events.append(load, List.of(ping), 0, List.of(new OutboxMessage(id, load, "send_sms", Channel.SMS,
                "{\"type\":\"send_sms\",\"subject\":\"" + Staging.ASK + "\",\"attempt\":1,\"text\":\"ETA?\"}",
                now, "c-1", "ping_0700")));

        OutboxRow dead = awaitStatus(outbox, id, OutboxStatus.DEAD);

        assertThat(dead.lastFailure()).isEqualTo("permanent: unreadable payload: to: missing");
        wiremock.verify(0, postRequestedFor(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(id)));
        assertThat(outcome(queued(pool, load, "out:" + id + ":failed")).failure()).contains("unreadable payload");
    }

    /**
     * An internal action that cannot be applied (a timer row without its fire time) dies at once:
     * never a Hero task, on-call is paged, and its failed outcome carries the decision's
     * correlation id and names the row as its cause.
     */
    @Test
    void anInternalActionThatCannotBeAppliedDiesAndPagesOnCallWithItsIdsOnTheOutcome() {
        String load = newLoadId();
        String id = load + "/" + Staging.ASK + "/1/set_timer";
        Instant now = clock.instant();
        InboundEvent ping = new InboundEvent("ping_0700", load, now, now, "corr-" + load, null,
                new EventPayload.LocationPing(dev.loadflow.model.event.Risk.HIGH, 1, 1));
        events.append(load, List.of(ping), 0, List.of(new OutboxMessage(id, load, "set_timer", Channel.INTERNAL,
                "{\"type\":\"set_timer\",\"subject\":\"" + Staging.ASK + "\",\"attempt\":1}", now, "corr-" + load,
                "ping_0700")));

        OutboxRow dead = awaitStatus(outbox, id, OutboxStatus.DEAD);

        assertThat(dead.correlationId()).isEqualTo("corr-" + load);
        assertThat(dead.causationId()).isEqualTo("ping_0700");
        assertThat(count(pool, "SELECT count(*) FROM ops_alert WHERE outbox_id = $1 AND kind = 'action_dead'", id))
                .as("on-call is paged").isOne();
        assertThat(count(pool, "SELECT count(*) FROM outbox WHERE load_id = $1", load)).as("no Hero task").isOne();
        InboundEvent failed = EventCodec.decode(queued(pool, load, "out:" + id + ":failed"));
        assertThat(failed.correlationId()).as("the decision's correlation id goes on").isEqualTo("corr-" + load);
        assertThat(failed.causationId()).as("caused by the row").isEqualTo(id);
        assertThat(((EventPayload.ActionOutcome) failed.payload()).heroChannel()).as("on-call was paged: the load raises no Hero task for it").isTrue();
    }

    @ParameterizedTest(name = "{0} {1} {2} → {3}")
    @CsvSource(delimiter = '|', textBlock = """
            nobody   | GET  | /admin/outbox/dead                 | 401
            source   | GET  | /admin/outbox/dead                 | 403
            viewer   | GET  | /admin/outbox/dead                 | 200
            operator | GET  | /admin/outbox/dead                 | 200
            nobody   | GET  | /admin/alerts                      | 401
            source   | GET  | /admin/alerts                      | 403
            viewer   | GET  | /admin/alerts                      | 200
            viewer   | GET  | /admin/outbox/no-such-row          | 404
            source   | POST | /admin/outbox/no-such-row/replay   | 403
            viewer   | POST | /admin/outbox/no-such-row/replay   | 403
            operator | POST | /admin/outbox/no-such-row/replay   | 404
            viewer   | POST | /admin/alerts/1/acknowledge        | 403
            nobody   | POST | /admin/outbox/replay                        | 401
            viewer   | POST | /admin/outbox/replay?loadId=none-1&limit=5 | 403
            operator | POST | /admin/outbox/replay?loadId=none-1&limit=5 | 200
            nobody   | GET  | /admin/audit                       | 401
            source   | GET  | /admin/audit                       | 403
            viewer   | GET  | /admin/audit                       | 200
            viewer   | GET  | /admin/audit?size=0                | 400
            viewer   | GET  | /admin/alerts?page=-1              | 400
            viewer   | GET  | /admin/outbox/dead?size=501        | 400
            viewer   | GET  | /admin/outbox/dead?page=2147483647 | 400
            viewer   | GET  | /admin/outbox/dead?page=99999999999 | 400
            viewer   | GET  | /admin/audit?size=fifty            | 400
            viewer   | GET  | /admin/no-such-endpoint            | 404
            viewer   | GET  | /admin/audit?page=100001&size=500  | 400
            viewer   | GET  | /admin/audit?page=100000&size=500  | 200
            """)
    void eachCallerGetsWhatItsRolesAllow(String caller, String method, String path, int status) {
        RequestSpecification request = (switch (caller) {
            case "nobody" -> given();
            case "source" -> given().auth().oauth2(TestCallers.INGEST_TOKEN);
            case "viewer" -> given().auth().oauth2(TestCallers.viewer());
            case "operator" -> given().auth().oauth2(TestCallers.operator());
            default -> throw new IllegalArgumentException(caller);
        }).urlEncodingEnabled(false);
        var response = (method.equals("GET") ? request.get(path) : request.post(path)).then().statusCode(status);
        if (status >= 400) {
            response.contentType("application/problem+json").body("status", is(status));
        }
    }

    @Test
    void aViewerReadsDeadRowsWithEveryPhoneNumberMaskedAndAnOperatorReadsThemWhole() {
        String load = newLoadId();
        deadSms(load, "{\"code\": 21211, \"message\": \"The 'To' number +15550100 is not a valid phone number.\"}");

        for (String path : List.of("/admin/outbox/dead?loadId=" + load, "/admin/outbox/" + encoded(smsId(load)))) {
            String seenByViewer = given().auth().oauth2(TestCallers.viewer()).urlEncodingEnabled(false).get(path)
                    .then().statusCode(200).extract().asString();
            assertThat(seenByViewer).as(path).contains("+1***00").doesNotContain("+15550100").doesNotContain("5550100");
            assertThat(given().auth().oauth2(TestCallers.operator()).urlEncodingEnabled(false).get(path)
                    .then().statusCode(200).extract().asString()).as(path).contains("+15550100");
        }
    }

    private static String encoded(String outboxId) {
        return URLEncoder.encode(outboxId, StandardCharsets.UTF_8);
    }

    /** The SMS of {@code load}'s ETA ask, refused by the provider with a 400 and {@code answer}, and parked. */
    private void deadSms(String load, String answer) {
        smsAnswers(load, 400, answer);
        Staging.etaAsk(events, load, clock.instant());
        awaitStatus(outbox, smsId(load), OutboxStatus.DEAD);
    }

    /** A dead SMS of {@code load}'s ETA ask; with {@code answered}, the driver answered since and the ask closed. */
    private String deadSms(String load, boolean answered) {
        deadSms(load, "invalid number");
        if (answered) {
            Instant now = clock.instant();
            InboundEvent reply = new InboundEvent("sms_0710", load, now, now, "c-" + load, null,
                    new EventPayload.InboundSms("+15550100", "ETA 9:30"));
            long version = events.read(load).version();
            events.append(load, List.of(reply, DecisionRecorded.decided(reply, now, List.of(), false, "driver answered",
                    List.of(Staging.ASK.toString()))), version, List.of());
        }
        return smsId(load);
    }

    private static ValidatableResponse replay(Map<String, Object> params) {
        return given().auth().oauth2(TestCallers.operator()).queryParams(params).post("/admin/outbox/replay").then();
    }

    @Test
    void aBulkReplayIsPreviewedCappedAndLeavesTheRowsOfClosedAsksDead() {
        String answered = newLoadId();
        String open = newLoadId();
        String staleSms = deadSms(answered, true);
        String freshSms = deadSms(open, false);

        replay(Map.of("loadId", open, "limit", 10, "dryRun", true)).statusCode(200)
                .body("matched", is(1)).body("wouldReplay", is(1)).body("stale", is(0)).body("sample", contains(freshSms));
        replay(Map.of("loadId", answered, "limit", 10, "dryRun", true)).statusCode(200)
                .body("matched", is(1)).body("wouldReplay", is(0)).body("stale", is(1));
        assertThat(outbox.find(freshSms).orElseThrow().status()).as("a dry run changes nothing").isEqualTo(OutboxStatus.DEAD);

        replay(Map.of("loadId", answered, "limit", 10)).statusCode(200).body("replayed", is(0)).body("stale", is(1));
        assertThat(outbox.find(staleSms).orElseThrow().status()).as("the driver answered: no SMS days later")
                .isEqualTo(OutboxStatus.DEAD);
        replay(Map.of("loadId", open, "limit", 10)).statusCode(200).body("replayed", is(1)).body("stale", is(0));
        replay(Map.of("loadId", answered, "limit", 10, "force", true)).statusCode(200).body("replayed", is(1));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> wiremock.verify(2,
                postRequestedFor(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(staleSms))));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            no limit            | actionType=send_sms                          | limit
            limit over the max  | limit=501                                    | limit
            limit of zero       | limit=0                                      | limit
            unknown actionType  | limit=5&actionType=send_smss                 | actionType
            bad loadId          | limit=5&loadId=load.one                      | loadId
            until before since  | limit=5&since=2026-11-30T08:00:00Z&until=2026-11-30T07:00:00Z | until
            """)
    void aBulkReplayWithBadFiltersIsRefusedAndReplaysNothing(String problem, String query, String field) {
        String load = newLoadId();
        String sms = deadSms(load, false);

        given().auth().oauth2(TestCallers.operator()).urlEncodingEnabled(false).post("/admin/outbox/replay?" + query)
                .then().statusCode(400).contentType("application/problem+json").body("field", is(field));

        assertThat(outbox.find(sms).orElseThrow().status()).isEqualTo(OutboxStatus.DEAD);
    }

    @Test
    void theApiPortServesNoMetricsHealthOrOpenApi() {
        given().get("/q/metrics").then().statusCode(404);
        given().get("/q/health/live").then().statusCode(404);
        given().get("/q/openapi").then().statusCode(404);
    }

    @Test
    void theAdminApiIsDescribedByAnOpenApiDocument() {
        management().get("/q/openapi?format=json").then().statusCode(200)
                .body("paths.'/admin/outbox/dead'.get.summary", is("List parked rows, newest dead first; filters are optional"))
                .body("components.securitySchemes.bearer.scheme", is("bearer"));
    }
}
