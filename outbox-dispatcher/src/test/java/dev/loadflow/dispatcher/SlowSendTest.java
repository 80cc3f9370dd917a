package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import dev.loadflow.dispatcher.claim.RowDispatcher;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static dev.loadflow.service.testing.Management.management;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.loadflow.dispatcher.Staging.queued;
import static dev.loadflow.dispatcher.Staging.smsId;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * A late {@code failed} next to {@code delivered}: a send that outlasts its lease. The second
 * dispatcher takes the row over and re-sends with the same key; the first one's late mark is
 * refused and changes nothing; both outcomes are published, with ids that differ by status.
 * The loop is off: the test plays both dispatchers step by step.
 */
@QuarkusTest
@TestProfile(SlowSendTest.ShortLease.class)
@WithTestResource(PostgresTestResource.class)
@WithTestResource(WireMockChannels.class)
class SlowSendTest {

    /**
     * A lease of a second; the SMS channel's timeout well above the first send's 2.5 s (the
     * suites' 3 s left half a second, which a busy machine took: the send timed out, its answer
     * was lost, and no {@code delivered} outcome was published).
     */
    public static class ShortLease implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("loadflow.dispatcher.lease", "PT1S", "loadflow.dispatcher.enabled", "false",
                    "loadflow.channels.sms.timeout", "PT10S");
        }
    }

    @Inject
    EventStore events;

    @Inject
    Outbox outbox;

    @Inject
    RowDispatcher dispatcher;

    @Inject
    Clock clock;

    @Inject
    Pool pool;

    @Test
    void aSendSlowerThanTheLeaseIsTakenOverAndBothOutcomesArePublished() throws Exception {
        WireMockServer wiremock = WireMockChannels.server();
        String load = newLoadId();
        String sms = smsId(load);
        wiremock.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(sms))
                .inScenario(sms).whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(200).withBody("late receipt").withFixedDelay(2_500))
                .willSetStateTo("second"));
        wiremock.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(sms))
                .inScenario(sms).whenScenarioStateIs("second")
                .willReturn(aResponse().withStatus(400).withBody("number blocked")));
        Staging.etaAsk(events, load, clock.instant());

        OutboxRow first = outbox.pending(10, clock.instant()).stream()
                .filter(r -> r.outboxId().equals(sms)).findFirst().orElseThrow();
        CompletableFuture<Void> slow = CompletableFuture.runAsync(() -> {
            try {
                dispatcher.dispatch(first);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        // the first send reached the channel and waits for its answer
        await().atMost(Duration.ofSeconds(10)).until(() -> wiremock.findAll(postRequestedFor(urlEqualTo("/sms/messages"))
                .withHeader("Idempotency-Key", equalTo(sms))).size() == 1);

        // a second dispatcher claims after the lease (1 s) has ended, while the first send still waits
        Instant afterTheLease = clock.instant().plus(Duration.ofSeconds(2));
        OutboxRow takenOver = outbox.pending(10, afterTheLease).stream()
                .filter(r -> r.outboxId().equals(sms)).findFirst().orElseThrow();
        assertThat(takenOver.claimToken()).isNotEqualTo(first.claimToken());
        dispatcher.dispatch(takenOver);
        slow.get();

        OutboxRow row = outbox.find(sms).orElseThrow();
        assertThat(row.status()).as("the late mark changed nothing").isEqualTo(OutboxStatus.DEAD);
        assertThat(row.receipt()).isNull();
        assertThat(row.lastFailure()).contains("number blocked");
        wiremock.verify(2, postRequestedFor(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(sms)));
        assertThat(queued(pool, load, "out:" + sms + ":delivered")).isNotNull();
        assertThat(queued(pool, load, "out:" + sms + ":failed")).isNotNull();
        assertThat(management().get("/q/metrics").then().extract().asString())
                .containsPattern("loadflow_outbox_sends_total\\{channel=\"sms\",result=\"stale\"\\} [1-9]");
    }
}
