package dev.loadflow.dispatcher.send;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

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
 * The plain-Java transports against a real HTTP server: what reaches the channel, what comes
 * back, and that no answer is {@link ChannelTransport.Unreachable}, never an HTTP status.
 * (The REST client transport needs the service's runtime: the dispatcher's service tests
 * cover it by setting {@code loadflow.channels.transport}.)
 */
class ChannelTransportsTest {

    private static WireMockServer channel;
    private static Vertx vertx;

    @BeforeAll
    static void start() {
        channel = new WireMockServer(options().dynamicPort());
        channel.start();
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        channel.stop();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @BeforeEach
    void reset() {
        channel.resetAll();
    }

    static List<Supplier<ChannelTransport>> transports() {
        return List.of(named("vertx", () -> new VertxHttpTransport(vertx, 4)), named("jdk", JdkHttpTransport::new));
    }

    private static Supplier<ChannelTransport> named(String name, Supplier<ChannelTransport> transport) {
        return new Supplier<>() {
            @Override
            public ChannelTransport get() {
                return transport.get();
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void aPostCarriesItsKeyTraceAndBodyAndReturnsTheAnswer(Supplier<ChannelTransport> transport) {
        channel.stubFor(post("/sms/messages").willReturn(aResponse().withStatus(200).withBody("{\"id\":\"m-1\"}")));
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

        ChannelTransport.Answer answer = transport.get().post(URI.create(channel.baseUrl() + "/sms/messages"),
                Duration.ofSeconds(5), "ob-1", traceparent, "{\"to\":\"+15550100\",\"text\":\"ETA?\"}");

        assertThat(answer).isEqualTo(new ChannelTransport.Answer(200, "{\"id\":\"m-1\"}", null));
        channel.verify(1, postRequestedFor(urlEqualTo("/sms/messages"))
                .withHeader("Idempotency-Key", equalTo("ob-1"))
                .withHeader("traceparent", equalTo(traceparent))
                .withHeader("Content-Type", equalTo("application/json"))
                .withRequestBody(equalToJson("{\"to\":\"+15550100\",\"text\":\"ETA?\"}")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void aRefusalIsAnAnswerWithItsRetryAfterNotAnError(Supplier<ChannelTransport> transport) {
        channel.stubFor(post("/sms/messages").willReturn(aResponse().withStatus(429).withHeader("Retry-After", "7")
                .withBody("slow down")));

        ChannelTransport.Answer answer = transport.get().post(URI.create(channel.baseUrl() + "/sms/messages"),
                Duration.ofSeconds(5), "ob-2", null, "{}");

        assertThat(answer).isEqualTo(new ChannelTransport.Answer(429, "slow down", "7"));
        channel.verify(1, postRequestedFor(urlEqualTo("/sms/messages")).withoutHeader("traceparent"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void noAnswerWithinTheTimeoutIsUnreachable(Supplier<ChannelTransport> transport) {
        channel.stubFor(post("/sms/messages").willReturn(aResponse().withStatus(200).withFixedDelay(3_000)));
        ChannelTransport sender = transport.get();
        long start = System.nanoTime();

        assertThatThrownBy(() -> sender.post(URI.create(channel.baseUrl() + "/sms/messages"), Duration.ofMillis(300),
                "ob-3", null, "{}")).isInstanceOf(ChannelTransport.Unreachable.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(2_500));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void aChannelNobodyListensOnIsUnreachable(Supplier<ChannelTransport> transport) throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }

        assertThatThrownBy(() -> transport.get().post(URI.create("http://127.0.0.1:" + closedPort + "/sms/messages"),
                Duration.ofSeconds(2), "ob-4", null, "{}"))
                .isInstanceOf(ChannelTransport.Unreachable.class)
                .hasMessageContaining("onnect");
    }
}
