package dev.loadflow.dispatcher.send;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.id.AskId;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A channel behind an adapter that wants a credential: each way of sending one reaches the adapter as set. */
class ChannelAuthTest {

    private static WireMockServer adapter;
    private static Vertx vertx;

    @BeforeAll
    static void start() {
        adapter = new WireMockServer(options().dynamicPort());
        adapter.start();
        adapter.stubFor(post(urlEqualTo("/sms/messages")).willReturn(aResponse().withStatus(201).withBody("{\"id\":\"m-1\"}")));
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        adapter.stop();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @ParameterizedTest(name = "auth={0}")
    @CsvSource(delimiter = '|', textBlock = """
            bearer | s3cret-token  |           | Authorization | Bearer s3cret-token
            basic  | loadflow:pw!1 |           | Authorization | Basic bG9hZGZsb3c6cHchMQ==
            header | s3cret-key    | X-Api-Key | X-Api-Key     | s3cret-key
            """)
    void theChannelsCredentialGoesWithEachSend(String auth, String secret, String header, String sentHeader, String sentValue) {
        ChannelClients clients = new ChannelClients(config(auth, secret, header), new VertxHttpTransport(vertx, 4),
                Clock.systemUTC());
        String key = "load-1/ask:eta_request:ping_" + auth + "/1/send_sms";

        Action.SendSms sms = new Action.SendSms(AskId.of("eta_request", "ping_" + auth), 1, "+15550100", "ETA?");
        SendResult result = clients.send(ClaimedRows.of(key, sms), sms);

        assertThat(result).isEqualTo(new SendResult.Delivered("{\"id\":\"m-1\"}"));
        adapter.verify(1, postRequestedFor(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", equalTo(key))
                .withHeader(sentHeader, equalTo(sentValue)));
    }

    @Test
    void aCredentialThatCannotWorkStopsTheStartNamingTheKey() {
        assertThatThrownBy(() -> new ChannelClients(config("bearer", null, null), new JdkHttpTransport(), Clock.systemUTC()))
                .hasMessage("loadflow.channels.sms.auth-secret is needed for auth=bearer");
        assertThatThrownBy(() -> new ChannelClients(config("basic", "no-colon", null), new JdkHttpTransport(), Clock.systemUTC()))
                .hasMessage("loadflow.channels.sms.auth-secret is user:password for auth=basic");
        assertThatThrownBy(() -> new ChannelClients(config("header", "k", null), new JdkHttpTransport(), Clock.systemUTC()))
                .hasMessage("loadflow.channels.sms.auth-header names the header for auth=header");
        assertThatThrownBy(() -> new ChannelClients(config("oauth", "k", null), new JdkHttpTransport(), Clock.systemUTC()))
                .hasMessage("loadflow.channels.sms.auth is none, bearer, basic or header; got 'oauth'");
    }

    /** The SMS channel at the adapter with {@code auth}; the others unconfigured. */
    private static ChannelsConfig config(String auth, String secret, String header) {
        return TestChannelsConfig.of(TestChannelsConfig.endpoint(Optional.of(URI.create(adapter.baseUrl() + "/sms")), auth,
                secret, header), TestChannelsConfig.endpoint(Optional.empty(), "none", null, null));
    }
}
