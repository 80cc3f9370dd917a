package dev.loadflow.dispatcher.provider;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.loadflow.dispatcher.send.Reconciler;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.dispatcher.send.VertxHttpTransport;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.json.ActionCodec;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The SMS channel against a stand-in for Twilio's Messages API answering in the shapes its
 * published description (twilio_api_v2010) gives: the request as Twilio takes it, its refusals
 * classified by Twilio's error codes, a lost answer never taken for a failure, and the message
 * looked for in Twilio's list before a second send.
 */
class TwilioSmsTest {

    static final String ACCOUNT = "AC" + "0123456789abcdef".repeat(2);
    static final String TOKEN = "auth-token-of-the-test-account";
    static final String MESSAGES = "/2010-04-01/Accounts/" + ACCOUNT + "/Messages.json";
    static final Instant T0 = Instant.parse("2026-12-01T07:00:00Z");
    static final DateTimeFormatter RFC_2822 = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    /** Twilio's stand-in, a server of each test's own: no answer of one test can reach another's client. */
    private WireMockServer twilio;
    private static Vertx vertx;
    private final FakeClock clock = FakeClock.at(T0);

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @BeforeEach
    void twilioStandIn() {
        twilio = new WireMockServer(options().dynamicPort());
        twilio.start();
    }

    @org.junit.jupiter.api.AfterEach
    void stopTwilioStandIn() {
        twilio.stop();
    }

    private TwilioSms sms(Optional<String> from, Optional<String> service, Duration timeout) {
        return new TwilioSms(new TwilioSms.Account(URI.create(twilio.baseUrl()), ACCOUNT, TOKEN, from, service,
                Optional.empty(), timeout), new VertxHttpTransport(vertx, 4), clock);
    }

    private TwilioSms sms() {
        return sms(Optional.of("+15557770000"), Optional.empty(), Duration.ofSeconds(2));
    }

    private static final String ROW_ID = "481207/ask:eta_request:ping_0700/1/send_sms";
    private static final Action.SendSms ASK = new Action.SendSms(AskId.of("eta_request", "ping_0700"), 1, "+15550100",
            "Hi, it's dispatch: what is your ETA to Chicago & Co?");

    @Test
    void aMessageIsCreatedFormEncodedWithBasicAuthAndItsSidIsTheReceipt() {
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(aResponse().withStatus(201)
                .withHeader("Content-Type", "application/json").withBody(message("SM" + "1".repeat(32), ASK.text(), T0))));

        SendResult result = sms().send(ROW_ID, ASK);

        assertThat(result).isEqualTo(new SendResult.Delivered("SM" + "1".repeat(32)));
        twilio.verify(1, postRequestedFor(urlEqualTo(MESSAGES))
                .withHeader("Content-Type", equalTo("application/x-www-form-urlencoded"))
                .withHeader("Authorization", equalTo("Basic " + Base64.getEncoder().encodeToString(
                        (ACCOUNT + ":" + TOKEN).getBytes(StandardCharsets.UTF_8))))
                .withRequestBody(equalTo("To=%2B15550100&From=%2B15557770000&Body="
                        + "Hi%2C+it%27s+dispatch%3A+what+is+your+ETA+to+Chicago+%26+Co%3F")));
    }

    @Test
    void aMessagingServicePicksTheSenderInsteadOfAFromNumber() {
        twilio.stubFor(post(urlEqualTo(MESSAGES)).willReturn(aResponse().withStatus(201).withBody(message("SM" + "2".repeat(32), ASK.text(), T0))));
        String service = "MG" + "abcdef0123456789".repeat(2);

        sms(Optional.empty(), Optional.of(service), Duration.ofSeconds(2)).send(ROW_ID, ASK);

        List<String> form = List.of(twilio.getAllServeEvents().getFirst().getRequest().getBodyAsString().split("&"));
        assertThat(form).contains("MessagingServiceSid=" + service).noneMatch(field -> field.startsWith("From="));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            400 | 21211 | The 'To' number +15550100 is not a valid phone number. | permanent
            400 | 21610 | Attempt to send to unsubscribed recipient                | permanent
            401 | 20003 | Authenticate                                             | permanent
            429 | 20429 | Too Many Requests                                        | overloaded
            503 | 20503 | Service unavailable                                      | overloaded
            500 | 20500 | Internal Server Error                                    | retryable
            """)
    void twiliosRefusalsAreClassifiedByStatusAndCode(int status, int code, String message, String kind) {
        // a server of its own per refusal: nothing of another case's exchange can answer this one
        WireMockServer refusing = new WireMockServer(options().dynamicPort());
        refusing.start();
        SendResult result;
        try {
            refusing.stubFor(post(urlEqualTo(MESSAGES)).willReturn(aResponse().withStatus(status).withHeader("Retry-After", "7")
                    .withHeader("Content-Type", "application/json")
                    .withBody("{\"code\": " + code + ", \"message\": \"" + message + "\", \"more_info\": "
                            + "\"https://www.twilio.com/docs/errors/" + code + "\", \"status\": " + status + "}")));
            result = new TwilioSms(new TwilioSms.Account(URI.create(refusing.baseUrl()), ACCOUNT, TOKEN,
                    Optional.of("+15557770000"), Optional.empty(), Optional.empty(), Duration.ofSeconds(2)),
                    new VertxHttpTransport(vertx, 4), clock).send(ROW_ID, ASK);
        } finally {
            refusing.stop();
        }

        switch (kind) {
            case "permanent" -> assertThat(result).isInstanceOfSatisfying(SendResult.Permanent.class, refused ->
                    assertThat(refused.reason()).isEqualTo(status + " Twilio " + code + ": " + message));
            case "overloaded" -> assertThat(result).isInstanceOfSatisfying(SendResult.Retryable.class, busy -> {
                assertThat(busy.overloaded()).isTrue();
                assertThat(busy.retryAfter()).contains(Duration.ofSeconds(7));
            });
            default -> assertThat(result).isInstanceOfSatisfying(SendResult.Retryable.class,
                    failed -> assertThat(failed.overloaded()).isFalse());
        }
    }

    /** The request was written and no answer came: Twilio may have created the message, so it is not simply sent again. */
    @Test
    void aLostAnswerIsUnknownAndAConnectionNeverMadeIsRetryable() {
        // an answer that comes too late, from a server of its own: its late write reaches no other test's request
        WireMockServer late = new WireMockServer(options().dynamicPort());
        late.start();
        try {
            late.stubFor(post(urlEqualTo(MESSAGES)).willReturn(aResponse().withStatus(201).withFixedDelay(1_500)
                    .withBody(message("SM" + "3".repeat(32), ASK.text(), T0))));
            assertThat(new TwilioSms(new TwilioSms.Account(URI.create(late.baseUrl()), ACCOUNT, TOKEN, Optional.of("+15557770000"),
                    Optional.empty(), Optional.empty(), Duration.ofMillis(300)), new VertxHttpTransport(vertx, 4), clock).send(ROW_ID, ASK))
                    .isInstanceOf(SendResult.Unknown.class);
        } finally {
            late.stop();
        }
        TwilioSms nowhere = new TwilioSms(new TwilioSms.Account(URI.create("http://127.0.0.1:1"), ACCOUNT, TOKEN,
                Optional.of("+15557770000"), Optional.empty(), Optional.empty(), Duration.ofSeconds(2)),
                new VertxHttpTransport(vertx, 4), clock);
        assertThat(nowhere.send(ROW_ID, ASK)).as("nothing reached Twilio").isInstanceOf(SendResult.Retryable.class);
    }

    @Test
    void theMessageFoundInTwiliosListIsTheRowDelivered() {
        String sid = "SM" + "4".repeat(32);
        listAnswers(message("SM" + "5".repeat(32), "another text", T0.plusSeconds(20)),
                message(sid, ASK.text(), T0.plusSeconds(3)));

        assertThat(sms().find(row(T0), ASK)).isEqualTo(new Reconciler.Has(sid));
        twilio.verify(getRequestedFor(urlPathEqualTo(MESSAGES)).withQueryParam("To", equalTo("+15550100"))
                .withQueryParam("From", equalTo("+15557770000")).withQueryParam("PageSize", equalTo("50")));
    }

    @Test
    void theSameTextSentBeforeTheFirstAttemptIsNotTheRowsMessage() {
        listAnswers(message("SM" + "6".repeat(32), ASK.text(), T0.minus(Duration.ofHours(20))));

        assertThat(sms().find(row(T0), ASK)).isEqualTo(new Reconciler.HasNot());
    }

    @Test
    void aListThatDoesNotReachBackToTheFirstAttemptCannotTell() {
        List<String> page = new ArrayList<>();
        for (int i = 0; i < TwilioSms.PAGE_SIZE; i++) {
            page.add(message("SM" + String.format("%032d", i), "other " + i, T0.plusSeconds(60 - i)));
        }
        listAnswers(page.toArray(String[]::new));

        assertThat(sms().find(row(T0), ASK)).isInstanceOf(Reconciler.CannotTell.class);
        twilio.stubFor(get(urlPathEqualTo(MESSAGES)).willReturn(aResponse().withStatus(500)));
        assertThat(sms().find(row(T0), ASK)).isInstanceOf(Reconciler.CannotTell.class);
    }

    @Test
    void anAccountThatCannotWorkStopsTheStart() {
        assertThatThrownBy(() -> new TwilioSms.Account(URI.create(twilio.baseUrl()), "AC123", TOKEN, Optional.of("+1555"),
                Optional.empty(), Optional.empty(), Duration.ofSeconds(1))).hasMessageContaining("account-sid");
        assertThatThrownBy(() -> new TwilioSms.Account(URI.create(twilio.baseUrl()), ACCOUNT, TOKEN, Optional.empty(),
                Optional.empty(), Optional.empty(), Duration.ofSeconds(1))).hasMessageContaining("messaging-service-sid");
    }

    private void listAnswers(String... messages) {
        twilio.stubFor(get(urlPathEqualTo(MESSAGES)).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"messages\": [" + String.join(",", messages) + "], \"page\": 0, \"page_size\": "
                        + TwilioSms.PAGE_SIZE + ", \"next_page_uri\": null, \"uri\": \"" + MESSAGES + "\"}")));
    }

    /** A Message resource as Twilio answers it (the fields this channel reads, and some it does not). */
    static String message(String sid, String body, Instant created) {
        return """
                {"account_sid": "%s", "api_version": "2010-04-01", "body": "%s", "date_created": "%s",
                 "date_sent": null, "date_updated": "%s", "direction": "outbound-api", "error_code": null,
                 "error_message": null, "from": "+15557770000", "messaging_service_sid": null, "num_media": "0",
                 "num_segments": "1", "price": null, "price_unit": "USD", "sid": "%s", "status": "queued",
                 "to": "+15550100", "uri": "%s"}""".formatted(ACCOUNT, body, RFC_2822.format(created), RFC_2822.format(created),
                sid, MESSAGES.replace(".json", "/" + sid + ".json"));
    }

    /** The row of {@link #ASK}, first attempted at {@code firstAttempt}, its answer lost then. */
    private static OutboxRow row(Instant firstAttempt) {
        return new OutboxRow("load-1/ask:eta_request:ping_0700/1/send_sms", "load-1", "send_sms", Channel.SMS,
                ActionCodec.encode(ASK).toString(), OutboxStatus.PENDING, 2, firstAttempt.plusSeconds(30), firstAttempt, UUID.randomUUID(),
                firstAttempt.plusSeconds(120), "no answer", null, null, null, "c-1", "ping_0700", firstAttempt.minusSeconds(1),
                null, firstAttempt);
    }
}
