package dev.loadflow.dispatcher;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.loadflow.model.action.Action;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.eventlog.EventStore;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.loadflow.dispatcher.Staging.count;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * Channels that share a host (an adapter serving SMS and Slack behind one URL, or the local run's
 * simulator) never queue for its connections: each channel's ceiling is 40 requests in flight, and
 * the host answers no request until 80 are open at once. The 40 SMS and the 40 Slack posts are all
 * in flight together and all delivered. With one host's connections capped at the largest channel's
 * ceiling, as they were, 40 requests reached it and waited there, the rest behind them.
 */
@QuarkusTest
@TestProfile(SharedHostTest.FortyEach.class)
@WithTestResource(PostgresTestResource.class)
@WithTestResource(SharedHostTest.Host.class)
class SharedHostTest {

    static final int EACH = 40;

    public static class FortyEach implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("loadflow.channels.sms.max-concurrency", Integer.toString(EACH),
                    "loadflow.channels.slack.max-concurrency", Integer.toString(EACH),
                    "loadflow.channels.hero.max-concurrency", Integer.toString(EACH),
                    "loadflow.channels.stage-webhooks.max-concurrency", Integer.toString(EACH),
                    // no request is given up on while the host holds it (a request given up on is sent again, and counted twice)
                    "loadflow.channels.sms.timeout", "PT30S", "loadflow.channels.slack.timeout", "PT30S");
        }
    }

    /** One host for every channel: it holds each request until {@code 2 × EACH} are open (at most 10 s), then answers them. */
    public static class Host implements QuarkusTestResourceLifecycleManager {

        static final AtomicInteger OPEN = new AtomicInteger();
        static final AtomicInteger MOST_OPEN = new AtomicInteger();
        static final AtomicInteger ANSWERED = new AtomicInteger();
        static final CountDownLatch ALL_OPEN = new CountDownLatch(2 * EACH);
        private HttpServer server;

        @Override
        public Map<String, String> start() {
            try {
                server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.createContext("/", this::answer);
            server.start();
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            return Map.of("loadflow.channels.sms.url", base + "/sms", "loadflow.channels.hero.url", base + "/hero",
                    "loadflow.channels.slack.url", base + "/slack");
        }

        private void answer(HttpExchange exchange) throws IOException {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                MOST_OPEN.accumulateAndGet(OPEN.incrementAndGet(), Math::max);
                ALL_OPEN.countDown();
                ALL_OPEN.await(10, TimeUnit.SECONDS);
                byte[] body = "{\"id\":\"m-%d\"}".formatted(ANSWERED.incrementAndGet()).getBytes(StandardCharsets.UTF_8);
                OPEN.decrementAndGet();
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void stop() {
            if (server != null) {
                server.stop(0);
            }
        }
    }

    @Inject
    EventStore events;

    @Inject
    Clock clock;

    @Inject
    Pool pool;

    @Test
    void channelsOnOneHostAreInFlightTogether() {
        String prefix = "host-" + Long.toHexString(clock.millis());
        for (int i = 0; i < EACH; i++) {
            Staging.etaAsk(events, prefix + "-sms-" + i, clock.instant());
            Staging.decide(events, prefix + "-slack-" + i, List.of(new Action.PostHeroSlack(Staging.ASK.toString(), 1,
                    "#hero-desk", "driver answered")), clock.instant());
        }

        await().atMost(Duration.ofSeconds(15)).until(() -> Host.ALL_OPEN.getCount() == 0);
        assertThat(Host.MOST_OPEN.get()).as("every channel's requests open at the host at once").isEqualTo(2 * EACH);
        await().atMost(Duration.ofSeconds(15)).until(() -> count(pool, "SELECT count(*) FROM outbox WHERE load_id LIKE $1 "
                + "AND status = 'dispatched' AND action_type IN ('send_sms', 'post_hero_slack')", prefix + "%") == 2 * EACH);
    }
}
