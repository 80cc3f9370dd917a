package dev.loadflow.dispatcher;

import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.send.TestChannelsConfig;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.service.security.Credentials;
import dev.loadflow.store.outbox.OutboxFailure;
import dev.loadflow.testing.PgBackend;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Slack incoming webhook's URL is a credential: when it cannot be reached, the failure kept on
 * the row (which viewers read, and the alert and the log repeat) names the webhook without it.
 */
class CredentialsRedactedTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("credentials_redacted");

    private static final Instant T0 = Instant.parse("2026-12-01T07:00:00Z");
    private static final String SECRET_PATH = "T0LOADFLOW/B0HERODESK/k3epTh1sS3cretPlease";
    private static Vertx vertx;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void aWebhooksUrlIsKeptOutOfTheFailureReason() throws Exception {
        PG.database().truncateAll();
        FakeClock clock = FakeClock.at(T0);
        // a webhook at an address nobody answers on, as the dispatcher's configuration names it
        URI webhook = URI.create("http://127.0.0.1:" + closedPort() + "/services/" + SECRET_PATH);
        Credentials.learn(webhook.toString());
        PlainDispatcher plain = new PlainDispatcher(PG, clock, vertx, TestChannelsConfig.of(
                TestChannelsConfig.endpoint(Optional.empty(), "none", null, null),
                TestChannelsConfig.slackApi(URI.create("http://127.0.0.1:9/api"), "xoxb-1-local-bot-token-for-test",
                        Duration.ofSeconds(2), Map.of("hero-desk", webhook))),
                DispatcherConfig.Circuit.of(50, 100, 100, Duration.ofSeconds(30)), channel -> new ChannelGuards.Pace(4, 0));
        String load = newLoadId();
        Staging.decide(plain.events, load, List.of(new Action.PostHeroSlack("ans:1", 1, "#hero-desk", "driver says 15:40")), T0);
        String outboxId = load + "/ans:1/1/post_hero_slack";

        plain.dispatchDue(Channel.SLACK, T0);

        List<OutboxFailure> failures = plain.outbox.failures(outboxId);
        assertThat(failures).first().satisfies(failure -> assertThat(failure.failure())
                .startsWith("no answer from " + Credentials.MASK)
                .doesNotContain("k3epTh1sS3cretPlease", "/services/T0LOADFLOW"));
    }
}
