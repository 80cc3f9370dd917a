package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.loadflow.dispatcher.Staging.count;
import static dev.loadflow.service.testing.Management.management;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * An SMS provider outage opens the SMS circuit: the rows behind it are deferred untried, so
 * their attempts and budgets are not burnt; when the provider is back the circuit closes and
 * every row goes out. While it is open, {@code channel_circuit} says so, which keeps autoscaling
 * from adding dispatchers for rows that only wait for the provider.
 */
@QuarkusTest
@TestProfile(CircuitBreakerTest.SmallCircuit.class)
@WithTestResource(PostgresTestResource.class)
@WithTestResource(WireMockChannels.class)
class CircuitBreakerTest {

    public static class SmallCircuit implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("loadflow.dispatcher.circuit.minimum-calls", "4",
                    "loadflow.dispatcher.circuit.sliding-window", "4",
                    "loadflow.dispatcher.circuit.open-for", "PT2S",
                    "loadflow.dispatcher.retry-budget", "PT60S",
                    "loadflow.channels.sms.max-concurrency", "2");
        }
    }

    @Inject
    EventStore events;

    @Inject
    Outbox outbox;

    @Inject
    Clock clock;

    @Inject
    Pool pool;

    private static double circuitState() {
        String line = management().get("/q/metrics").then().extract().asString().lines()
                .filter(l -> l.startsWith("loadflow_channel_circuit_state{channel=\"sms\"}")).findFirst().orElseThrow();
        // "name value", then, with a trace current, " # {exemplar} value time"
        return Double.parseDouble(line.split(" ")[1]);
    }

    @Test
    void anOutageOpensTheCircuitAndTheRowsBehindItKeepTheirBudget() {
        WireMockServer wiremock = WireMockChannels.server();
        String prefix = "cb-" + Long.toHexString(System.nanoTime());
        wiremock.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", matching(prefix + ".*"))
                .willReturn(aResponse().withStatus(503)));
        for (int i = 0; i < 20; i++) {
            Staging.etaAsk(events, prefix + "-" + i, clock.instant());
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> circuitState() == 2.0);
        await().atMost(Duration.ofSeconds(20)).until(() -> count(pool,
                "SELECT count(*) FROM outbox WHERE load_id LIKE $1 AND channel = 'sms' AND status = 'pending' AND available_at > now()",
                prefix + "%") >= 16);
        long untried = count(pool, "SELECT count(*) FROM outbox WHERE load_id LIKE $1 AND channel = 'sms' AND attempts = 0",
                prefix + "%");
        int sent = wiremock.findAll(postRequestedFor(urlEqualTo("/sms/messages"))
                .withHeader("Idempotency-Key", matching(prefix + ".*"))).size();
        assertThat(sent).as("calls before the circuit opened").isLessThan(20);
        assertThat(untried).as("rows deferred untried while the circuit is open").isGreaterThan(0);
        assertThat(count(pool, "SELECT count(*) FROM outbox WHERE load_id LIKE $1 AND status = 'dead'", prefix + "%")).isZero();
        await().atMost(Duration.ofSeconds(5)).until(() -> count(pool,
                "SELECT count(*) FROM channel_circuit WHERE channel = $1 AND open_until > now()", "sms") == 1);

        wiremock.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", matching(prefix + ".*"))
                .willReturn(aResponse().withStatus(200).withBody("back")));

        await().atMost(Duration.ofSeconds(40)).until(() -> count(pool,
                "SELECT count(*) FROM outbox WHERE load_id LIKE $1 AND channel = 'sms' AND status = 'dispatched'", prefix + "%") == 20);
        assertThat(circuitState()).isEqualTo(0.0);
        await().atMost(Duration.ofSeconds(5)).until(() -> count(pool,
                "SELECT count(*) FROM channel_circuit WHERE channel = $1", "sms") == 0);
    }
}
