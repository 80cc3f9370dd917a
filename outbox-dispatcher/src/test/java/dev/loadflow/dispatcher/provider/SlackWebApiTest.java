package dev.loadflow.dispatcher.provider;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.ClaimedRows;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.dispatcher.send.TestChannelsConfig;
import dev.loadflow.dispatcher.send.VertxHttpTransport;
import dev.loadflow.model.action.Action;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Hero Slack channel against a stand-in for Slack's Web API answering as {@code chat.postMessage}
 * does: the client's channel and the escaped text with the bot token; Slack's {@code "ok": false}
 * errors classified; {@code 429} waited out; a lost answer never taken for a failure.
 */
class SlackWebApiTest {

    private static WireMockServer slack;
    private static Vertx vertx;

    @BeforeAll
    static void start() {
        slack = new WireMockServer(options().dynamicPort());
        slack.start();
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        slack.stop();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @BeforeEach
    void reset() {
        slack.resetAll();
    }

    private static SlackWebApi api(Duration timeout) {
        return new SlackWebApi(URI.create(slack.baseUrl() + "/api"), "xoxb-test-token", timeout, new VertxHttpTransport(vertx, 4),
                Clock.systemUTC());
    }

    private static final Action.PostHeroSlack POST = new Action.PostHeroSlack("driver_reply:sms_0710", 1, "#hero-client-b",
            "Driver on load 481207: <!channel> ETA 9:30 & <https://x.example|click>");

    @Test
    void theClientsChannelGetsTheEscapedTextWithTheBotToken() {
        slack.stubFor(post(urlEqualTo("/api/chat.postMessage")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"ok\": true, \"channel\": \"C0HERO\", \"ts\": \"1764572400.000100\", \"message\": {\"text\": \"…\"}}")));

        SendResult result = api(Duration.ofSeconds(2)).post(POST);

        assertThat(result).isEqualTo(new SendResult.Delivered("C0HERO/1764572400.000100"));
        slack.verify(1, postRequestedFor(urlEqualTo("/api/chat.postMessage"))
                .withHeader("Authorization", equalTo("Bearer xoxb-test-token"))
                .withRequestBody(equalToJson("""
                        {"channel": "#hero-client-b",
                         "text": "Driver on load 481207: &lt;!channel&gt; ETA 9:30 &amp; &lt;https://x.example|click&gt;"}""")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"channel_not_found, permanent", "not_in_channel, permanent", "token_revoked, permanent",
            "internal_error, retryable", "fatal_error, retryable"})
    void slacksErrorsAreClassified(String error, String kind) {
        slack.stubFor(post(urlEqualTo("/api/chat.postMessage")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json").withBody("{\"ok\": false, \"error\": \"" + error + "\"}")));

        SendResult result = api(Duration.ofSeconds(2)).post(POST);

        if (kind.equals("permanent")) {
            assertThat(result).isEqualTo(new SendResult.Permanent("Slack " + error));
        } else {
            assertThat(result).isInstanceOfSatisfying(SendResult.Retryable.class,
                    failed -> assertThat(failed.reason()).isEqualTo("Slack " + error));
        }
    }

    @Test
    void aRateLimitIsWaitedOutAndALostAnswerIsUnknown() {
        slack.stubFor(post(urlEqualTo("/api/chat.postMessage")).willReturn(aResponse().withStatus(429).withHeader("Retry-After", "30")
                .withBody("{\"ok\": false, \"error\": \"ratelimited\"}")));
        assertThat(api(Duration.ofSeconds(2)).post(POST)).isInstanceOfSatisfying(SendResult.Retryable.class, busy -> {
            assertThat(busy.overloaded()).isTrue();
            assertThat(busy.retryAfter()).contains(Duration.ofSeconds(30));
        });

        // an answer that comes too late, from a server of its own: its late write reaches no other test's request
        WireMockServer late = new WireMockServer(options().dynamicPort());
        late.start();
        try {
            late.stubFor(post(urlEqualTo("/api/chat.postMessage")).willReturn(aResponse().withStatus(200).withFixedDelay(1_500)
                    .withBody("{\"ok\": true, \"channel\": \"C0HERO\", \"ts\": \"1\"}")));
            assertThat(new SlackWebApi(URI.create(late.baseUrl() + "/api"), "xoxb-test-token", Duration.ofMillis(300),
                    new VertxHttpTransport(vertx, 4), Clock.systemUTC()).post(POST)).isInstanceOf(SendResult.Unknown.class);
        } finally {
            late.stop();
        }
    }

    /**
     * A client whose workspace has an incoming webhook rather than the bot: posts to its channel go
     * to that webhook (only the text: the webhook posts where it was made for), the others through
     * the Web API; a lost answer from the webhook is unknown, as it keeps no idempotency key.
     */
    @Test
    void aChannelWithAWebhookOfItsOwnIsPostedThroughItAndTheOthersThroughTheApi() {
        slack.stubFor(post(urlEqualTo("/api/chat.postMessage")).willReturn(aResponse().withStatus(200)
                .withBody("{\"ok\": true, \"channel\": \"C0HERO\", \"ts\": \"1764572400.000200\"}")));
        slack.stubFor(post(urlEqualTo("/services/T0/B0/client-b")).willReturn(aResponse().withStatus(200).withBody("ok")));
        ChannelClients clients = new ChannelClients(TestChannelsConfig.of(
                TestChannelsConfig.endpoint(Optional.empty(), "none", null, null),
                TestChannelsConfig.slackApi(URI.create(slack.baseUrl() + "/api"), "xoxb-test-token", Duration.ofMillis(500),
                        Map.of("hero-client-b", URI.create(slack.baseUrl() + "/services/T0/B0/client-b")))),
                new VertxHttpTransport(vertx, 4), Clock.systemUTC());

        SendResult viaWebhook = clients.send(ClaimedRows.of("load-1/driver_reply:sms_0710/1/post_hero_slack", POST), POST);
        Action.PostHeroSlack toTheDesk = new Action.PostHeroSlack("driver_reply:sms_0711", 1, "#hero-desk", "Driver: ETA 10:00");
        SendResult viaApi = clients.send(ClaimedRows.of("load-2/driver_reply:sms_0711/1/post_hero_slack", toTheDesk), toTheDesk);

        assertThat(viaWebhook).isEqualTo(new SendResult.Delivered("ok"));
        assertThat(viaApi).isEqualTo(new SendResult.Delivered("C0HERO/1764572400.000200"));
        slack.verify(1, postRequestedFor(urlEqualTo("/services/T0/B0/client-b")).withRequestBody(equalToJson(
                "{\"text\": \"Driver on load 481207: &lt;!channel&gt; ETA 9:30 &amp; &lt;https://x.example|click&gt;\"}")));
        slack.verify(1, postRequestedFor(urlEqualTo("/api/chat.postMessage")));

        WireMockServer late = new WireMockServer(options().dynamicPort());
        late.start();
        try {
            late.stubFor(post(urlEqualTo("/services/T0/B0/client-b")).willReturn(aResponse().withStatus(200).withBody("ok")
                    .withFixedDelay(1_500)));
            ChannelClients lateWebhook = new ChannelClients(TestChannelsConfig.of(
                    TestChannelsConfig.endpoint(Optional.empty(), "none", null, null),
                    TestChannelsConfig.slackApi(URI.create(slack.baseUrl() + "/api"), "xoxb-test-token", Duration.ofMillis(500),
                            Map.of("hero-client-b", URI.create(late.baseUrl() + "/services/T0/B0/client-b")))),
                    new VertxHttpTransport(vertx, 4), Clock.systemUTC());
            assertThat(lateWebhook.send(ClaimedRows.of("load-3/driver_reply:sms_0712/1/post_hero_slack", POST), POST))
                    .isInstanceOf(SendResult.Unknown.class);
        } finally {
            late.stop();
        }
    }

    @Test
    void aMissingTokenStopsTheStart() {
        assertThatThrownBy(() -> new SlackWebApi(URI.create("https://slack.com/api"), " ", Duration.ofSeconds(1),
                new VertxHttpTransport(vertx, 1), Clock.systemUTC())).hasMessageContaining("bot-token");
    }
}
