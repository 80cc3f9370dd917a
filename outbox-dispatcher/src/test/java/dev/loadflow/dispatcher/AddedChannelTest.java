package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.loadflow.dispatcher.example.EmailKind;
import dev.loadflow.dispatcher.example.SendEmail;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.ActionType;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.json.EventCodec;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.loadflow.dispatcher.Staging.ASK;
import static dev.loadflow.dispatcher.Staging.awaitStatus;
import static dev.loadflow.dispatcher.Staging.decide;
import static dev.loadflow.dispatcher.Staging.queued;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A channel added to loadflow as the guide to extending it says: the example in the test sources
 * ({@code dev.loadflow.dispatcher.example}) is an action record, its {@code ActionKind} listed in
 * {@code META-INF/services}, and a {@code ChannelSender} bean. Nothing else is changed, and a
 * decision's email goes the way an SMS goes.
 */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
@WithTestResource(WireMockChannels.class)
class AddedChannelTest {

    @Inject
    EventStore events;

    @Inject
    Outbox outbox;

    @Inject
    Pool pool;

    @Inject
    Clock clock;

    private final WireMockServer wiremock = WireMockChannels.server();

    @Test
    void anAddedActionTypeIsLoggedSentOnItsChannelWithItsKeyAndItsOutcomeIsQueued() {
        String load = newLoadId();
        SendEmail email = new SendEmail(ASK.toString(), 1, "driver@example.com", "ETA?");
        String outboxId = email.key(load).toString();
        wiremock.stubFor(post(urlEqualTo("/email/emails")).withHeader("Idempotency-Key", equalTo(outboxId))
                .willReturn(aResponse().withStatus(202).withBody("{\"emailId\":\"e-7\"}")));

        decide(events, load, List.<Action>of(email), clock.instant());

        OutboxRow row = awaitStatus(outbox, outboxId, OutboxStatus.DISPATCHED);
        assertThat(row.channel()).isSameAs(Channel.fromWire("email"));
        assertThat(row.actionType()).isEqualTo("send_email");
        assertThat(row.receipt()).isEqualTo("{\"emailId\":\"e-7\"}");
        wiremock.verify(1, postRequestedFor(urlEqualTo("/email/emails")).withHeader("Idempotency-Key", equalTo(outboxId))
                .withRequestBody(equalToJson("{\"to\":\"driver@example.com\",\"text\":\"ETA?\"}")));
        String delivered = queued(pool, load, "out:" + outboxId + ":delivered");
        assertThat(delivered).as("the ActionOutcome on the load's queue").isNotNull();
        assertThat(((EventPayload.ActionOutcome) EventCodec.decode(delivered).payload()).actionType()).isEqualTo("send_email");

        List<Action> logged = events.read(load).entries().stream().map(RecordedEntry::entry)
                .filter(DecisionRecorded.class::isInstance).map(DecisionRecorded.class::cast)
                .flatMap(decision -> decision.actions().stream()).toList();
        assertThat(logged).as("read back from the log through its ActionKind").containsExactly(email);
    }

    @Test
    void theAddedTypeAndChannelAreListedWithTheBuiltInOnesAndAFailedEmailIsForAHeroNotOnCall() {
        assertThat(ActionType.values()).contains(EmailKind.TYPE, ActionType.SEND_SMS);
        assertThat(Channel.values()).contains(EmailKind.EMAIL, Channel.SMS);
        assertThat(ActionType.fromWire("send_email").alertsOpsOnFailure()).isFalse();
    }
}
