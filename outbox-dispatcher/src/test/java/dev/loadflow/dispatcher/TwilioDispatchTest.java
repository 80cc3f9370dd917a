package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.Fault;
import dev.loadflow.dispatcher.claim.RowDispatcher;
import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.send.TestChannelsConfig;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.alert.PgOpsAlerts;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxMessage;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.store.provider.PgProviderMessages;
import dev.loadflow.store.provider.ProviderMessages;
import dev.loadflow.testing.PgBackend;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A driver's SMS through Twilio, whose API keeps no idempotency key, when Twilio's answer is lost
 * (the connection reset after the request was written): the dispatcher never sends blind a second time. Its
 * next attempt looks for the message in Twilio's list first: found, the row is delivered with
 * its {@code sid}; not there, it is sent again; when Twilio cannot say, the row waits, and once
 * the retry budget is spent it is left to an operator as ambiguous, with on-call paged.
 */
class TwilioDispatchTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("twilio_dispatch");

    private static final String ACCOUNT = "AC" + "0123456789abcdef".repeat(2);
    private static final String MESSAGES = "/2010-04-01/Accounts/" + ACCOUNT + "/Messages.json";
    private static final Instant T0 = Instant.parse("2026-12-01T07:00:00Z");
    private static final DateTimeFormatter RFC_2822 = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    private static WireMockServer twilio;
    private static Vertx vertx;
    private final FakeClock clock = FakeClock.at(T0);
    private EventStore events;
    private Outbox outbox;
    private RowDispatcher dispatcher;

    @BeforeAll
    static void start() {
        twilio = new WireMockServer(options().dynamicPort());
        twilio.start();
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        twilio.stop();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    /** Marks of delivered rows the outbox refuses from now on (counting down): the finish after an accepted send fails. */
    private final AtomicInteger deliveredMarksRefused = new AtomicInteger();

    @BeforeEach
    void setUp() {
        PG.database().truncateAll();
        twilio.resetAll();
        deliveredMarksRefused.set(0);
        PlainDispatcher plain = new PlainDispatcher(PG, clock, vertx, TestChannelsConfig.of(
                TestChannelsConfig.twilio(URI.create(twilio.baseUrl()), ACCOUNT, "token", "+15557770000", Duration.ofMillis(400)),
                TestChannelsConfig.endpoint(java.util.Optional.empty(), "none", null, null)),
                DispatcherConfig.Circuit.of(50, 100, 100, Duration.ofSeconds(30)), channel -> new ChannelGuards.Pace(4, 0),
                this::refusingDeliveredMarks);
        events = plain.events;
        outbox = plain.outbox;
        dispatcher = plain.dispatcher;
    }

    private Outbox refusingDeliveredMarks(Outbox outbox) {
        return PlainDispatcher.refusing(outbox, method -> method.startsWith("markDispatched"), deliveredMarksRefused);
    }

    private static final String TEXT = "ETA to Chicago?";

    /** A ping whose decision asks the driver by SMS; returns the row's id. */
    private String askDriver(String load) {
        return askDriver(load, 1);
    }

    /** Attempt {@code attempt} of the ask, with the same text each time (as the default SOP text has no {@code {attempt}}). */
    private String askDriver(String load, int attempt) {
        InboundEvent ping = new InboundEvent("ping_0700_" + attempt, load, clock.instant(), clock.instant(), "c-" + load, null,
                new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6));
        Action.SendSms sms = new Action.SendSms(Staging.ASK, attempt, "+15550100", TEXT);
        OutboxMessage row = OutboxMessage.of(load, sms, clock.instant(), ping.correlationId(), ping.eventId());
        events.append(load, List.of(ping, DecisionRecorded.decided(ping, clock.instant(), List.of(sms), false, "test",
                List.of())), events.read(load).version(), List.of(row));
        return row.outboxId();
    }

    /** Dispatches what is due now, as a dispatcher's loop would. */
    private void dispatchDue() throws InterruptedException {
        for (OutboxRow row : outbox.pending(10, clock.instant())) {
            dispatcher.dispatch(row);
        }
    }

    /** The first attempt: Twilio takes the request, and the connection is reset before its answer. */
    private String firstAttemptLosesItsAnswer(String load) throws InterruptedException {
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)));
        String id = askDriver(load);
        dispatchDue();
        OutboxRow unsure = outbox.find(id).orElseThrow();
        assertThat(unsure.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(unsure.unsureSince()).as("the answer was lost").isEqualTo(T0);
        clock.advance(Duration.ofMinutes(1));
        return id;
    }

    @Test
    void aMessageTwilioHasIsTheRowDeliveredWithItsSidAndIsNotSentAgain() throws Exception {
        String id = firstAttemptLosesItsAnswer(newLoadId());
        String sid = "SM" + "1".repeat(32);
        listAnswers("""
                {"sid": "%s", "body": "%s", "direction": "outbound-api", "date_created": "%s", "status": "sent",
                 "to": "+15550100", "from": "+15557770000"}""".formatted(sid, TEXT, RFC_2822.format(T0.plusSeconds(1))));

        dispatchDue();

        OutboxRow delivered = outbox.find(id).orElseThrow();
        assertThat(delivered.status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(delivered.receipt()).isEqualTo(sid);
        twilio.verify(1, postRequestedFor(urlEqualTo(MESSAGES)));
        twilio.verify(1, getRequestedFor(urlPathEqualTo(MESSAGES)));
    }

    @Test
    void aMessageTwilioHasNotIsSentAgain() throws Exception {
        String id = firstAttemptLosesItsAnswer(newLoadId());
        listAnswers();
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(aResponse().withStatus(201)
                .withBody("{\"sid\": \"SM" + "2".repeat(32) + "\", \"status\": \"queued\"}")));

        dispatchDue();

        assertThat(outbox.find(id).orElseThrow().receipt()).isEqualTo("SM" + "2".repeat(32));
        twilio.verify(2, postRequestedFor(urlEqualTo(MESSAGES)));
    }

    /**
     * A dispatcher that died after Twilio took its request and before it marked the row leaves no
     * trace of the attempt but its count: the next claim, after the lease, asks Twilio first and
     * finds the message, so the driver gets one SMS.
     */
    @Test
    void anAttemptThatLeftNoMarkIsLookedForAtTwilioBeforeTheRowIsSentAgain() throws Exception {
        String id = askDriver(newLoadId());
        OutboxRow diedWith = outbox.pending(10, clock.instant()).getFirst();
        assertThat(diedWith.attempts()).isEqualTo(1);
        String sid = "SM" + "3".repeat(32);
        listAnswers("""
                {"sid": "%s", "body": "%s", "direction": "outbound-api", "date_created": "%s", "status": "delivered",
                 "to": "+15550100", "from": "+15557770000"}""".formatted(sid, TEXT, RFC_2822.format(T0.plusSeconds(1))));
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(aResponse().withStatus(201)
                .withBody("{\"sid\": \"SM" + "4".repeat(32) + "\", \"status\": \"queued\"}")));
        clock.advance(Duration.ofSeconds(91));

        dispatchDue();

        OutboxRow delivered = outbox.find(id).orElseThrow();
        assertThat(delivered.attempts()).isEqualTo(2);
        assertThat(delivered.status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(delivered.receipt()).as("the message the dead dispatcher sent").isEqualTo(sid);
        twilio.verify(0, postRequestedFor(urlEqualTo(MESSAGES)));
        twilio.verify(1, getRequestedFor(urlPathEqualTo(MESSAGES)));
    }

    @Test
    void whileTwilioCannotSayTheRowWaitsAndPastTheBudgetAnOperatorDecides() throws Exception {
        String load = newLoadId();
        String id = firstAttemptLosesItsAnswer(load);
        twilio.stubFor(get(urlPathEqualTo(MESSAGES)).willReturn(aResponse().withStatus(503)));

        for (int pass = 0; pass < 30 && outbox.find(id).orElseThrow().status() == OutboxStatus.PENDING; pass++) {
            dispatchDue();
            clock.advance(Duration.ofMinutes(1));
        }

        OutboxRow left = outbox.find(id).orElseThrow();
        assertThat(left.status()).isEqualTo(OutboxStatus.AMBIGUOUS);
        assertThat(left.lastFailure()).contains("retry budget").contains("503");
        twilio.verify(1, postRequestedFor(urlEqualTo(MESSAGES)));
        assertThat(new PgOpsAlerts(PG.pool()).list(null, 0, 10)).singleElement()
                .satisfies(alert -> assertThat(alert.kind()).isEqualTo("action_ambiguous"));
        assertThat(outbox.ambiguous(10)).extracting(OutboxRow::outboxId).containsExactly(id);
    }

    /**
     * Two attempts of one ask, the same number and text: the first went out and holds its message;
     * the second's answer was lost before Twilio created anything. Its reconcile sees the first's
     * message in the list and passes over it (another row holds it): the second is sent, and the
     * driver gets two messages, each the receipt of its own row.
     */
    @Test
    void anEarlierAttemptsMessageIsNeverTakenAsALaterAttemptsOwn() throws Exception {
        String load = newLoadId();
        String sid1 = "SM" + "5".repeat(32);
        String sid2 = "SM" + "6".repeat(32);
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(created(sid1)));
        String first = askDriver(load, 1);
        dispatchDue();
        clock.advance(Duration.ofSeconds(20));
        String second = askDriver(load, 2);
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)));
        dispatchDue();
        listAnswers(message(sid1, T0.plusSeconds(1)));
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(created(sid2)));
        clock.advance(Duration.ofMinutes(1));

        dispatchDue();

        assertThat(outbox.find(first).orElseThrow().receipt()).isEqualTo(sid1);
        OutboxRow again = outbox.find(second).orElseThrow();
        assertThat(again.status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(again.receipt()).as("its own message, not the first attempt's").isEqualTo(sid2);
        twilio.verify(3, postRequestedFor(urlEqualTo(MESSAGES)));
    }

    /**
     * Two rows to one number with one text whose answers were both lost, and two messages at
     * Twilio: which is whose cannot be told from the list, so neither is guessed. Once Twilio's
     * status callbacks (which name each row) are recorded, each row takes its own message.
     */
    @Test
    void messagesThatCannotBeToldApartAreNotGuessedUntilTheStatusCallbacksSay() throws Exception {
        String load = newLoadId();
        String sid1 = "SM" + "7".repeat(32);
        String sid2 = "SM" + "8".repeat(32);
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)));
        String first = askDriver(load, 1);
        dispatchDue();
        clock.advance(Duration.ofSeconds(5));
        String second = askDriver(load, 2);
        dispatchDue();
        listAnswers(message(sid2, T0.plusSeconds(6)), message(sid1, T0.plusSeconds(1)));
        clock.advance(Duration.ofMinutes(1));

        dispatchDue();

        assertThat(List.of(outbox.find(first).orElseThrow(), outbox.find(second).orElseThrow()))
                .allSatisfy(row -> {
                    assertThat(row.status()).isEqualTo(OutboxStatus.PENDING);
                    assertThat(row.lastFailure()).contains("cannot be told apart");
                });
        ProviderMessages callbacks = new PgProviderMessages(PG.pool());
        callbacks.record("twilio", sid2, second, "delivered", clock.instant());
        callbacks.record("twilio", sid1, first, "sent", clock.instant());
        clock.advance(Duration.ofMinutes(1));

        dispatchDue();

        assertThat(outbox.find(first).orElseThrow().receipt()).isEqualTo(sid1);
        assertThat(outbox.find(second).orElseThrow().receipt()).isEqualTo(sid2);
        twilio.verify(2, postRequestedFor(urlEqualTo(MESSAGES)));
    }

    /**
     * Twilio accepted the send and the row's mark failed (the database refused it for the whole
     * finish): the row keeps the message's sid, and its next claim finishes it without a second
     * request. The driver gets one SMS, and the row holds it.
     */
    @Test
    void anAcceptedSendWhoseMarkFailedIsFinishedWithoutASecondSend() throws Exception {
        String sid = "SM" + "9".repeat(32);
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(created(sid)));
        String id = askDriver(newLoadId());
        deliveredMarksRefused.set(2);

        dispatchDue();

        OutboxRow kept = outbox.find(id).orElseThrow();
        assertThat(kept.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(kept.receipt()).isEqualTo(sid);
        clock.advance(Duration.ofMinutes(1));

        dispatchDue();

        OutboxRow done = outbox.find(id).orElseThrow();
        assertThat(done.status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(done.receipt()).isEqualTo(sid);
        twilio.verify(1, postRequestedFor(urlEqualTo(MESSAGES)));
        assertThat(new PgProviderMessages(PG.pool()).messagesOf("twilio", id)).containsExactly(sid);
    }

    /** A 502 from Twilio's edge may hide a message created behind it: the row is looked for before it is sent again. */
    @Test
    void aGatewayErrorIsReconciledBeforeASecondSend() throws Exception {
        String sid = "SM" + "a".repeat(32);
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(aResponse().withStatus(502)));
        String id = askDriver(newLoadId());
        dispatchDue();
        assertThat(outbox.find(id).orElseThrow().unsureSince()).isEqualTo(T0);
        listAnswers(message(sid, T0.plusSeconds(1)));
        clock.advance(Duration.ofMinutes(1));

        dispatchDue();

        assertThat(outbox.find(id).orElseThrow().receipt()).isEqualTo(sid);
        twilio.verify(1, postRequestedFor(urlEqualTo(MESSAGES)));
    }

    /**
     * A claim with less lease left than a request may take is not sent: its request could outlast
     * the claim and meet the request of the dispatcher that claims the row next, and Twilio keeps
     * no key. The row goes out once, when it is claimed again.
     */
    @Test
    void aClaimNearItsLeasesEndIsNotSentAndTheRowGoesOutOnceWhenClaimedAgain() throws Exception {
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(created("SM" + "c".repeat(32))));
        String id = askDriver(newLoadId());
        OutboxRow late = outbox.pending(10, clock.instant()).getFirst();
        clock.advance(PlainDispatcher.LEASE.minusSeconds(5));

        dispatcher.dispatch(late);

        twilio.verify(0, postRequestedFor(urlEqualTo(MESSAGES)));
        clock.advance(Duration.ofSeconds(6));
        dispatchDue();
        assertThat(outbox.find(id).orElseThrow().receipt()).isEqualTo("SM" + "c".repeat(32));
        twilio.verify(1, postRequestedFor(urlEqualTo(MESSAGES)));
    }

    /** The status callback each send names carries its row's outbox id. */
    @Test
    void eachSendNamesItsRowInItsStatusCallback() throws Exception {
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(created("SM" + "b".repeat(32))));
        String id = askDriver(newLoadId());
        PlainDispatcher withCallback = new PlainDispatcher(PG, clock, vertx, TestChannelsConfig.of(
                TestChannelsConfig.twilio(URI.create(twilio.baseUrl()), ACCOUNT, "token", "+15557770000", Duration.ofMillis(400),
                        URI.create("https://loadflow.example/sources/twilio/status")),
                TestChannelsConfig.endpoint(java.util.Optional.empty(), "none", null, null)));

        withCallback.dispatchDue(dev.loadflow.model.action.Channel.SMS, clock.instant());

        twilio.verify(1, postRequestedFor(urlEqualTo(MESSAGES)).withRequestBody(containing("StatusCallback="
                + java.net.URLEncoder.encode("https://loadflow.example/sources/twilio/status?outboxId="
                + java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8), java.nio.charset.StandardCharsets.UTF_8))));
    }

    private static com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder created(String sid) {
        return aResponse().withStatus(201).withHeader("Content-Type", "application/json")
                .withBody("{\"sid\": \"" + sid + "\", \"status\": \"queued\"}");
    }

    private static String message(String sid, Instant created) {
        return """
                {"sid": "%s", "body": "%s", "direction": "outbound-api", "date_created": "%s", "status": "sent",
                 "to": "+15550100", "from": "+15557770000"}""".formatted(sid, TEXT, RFC_2822.format(created));
    }

    private static void listAnswers(String... messages) {
        twilio.stubFor(get(urlPathEqualTo(MESSAGES)).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"messages\": [" + String.join(",", messages) + "], \"page\": 0, \"page_size\": 50}")));
    }
}
