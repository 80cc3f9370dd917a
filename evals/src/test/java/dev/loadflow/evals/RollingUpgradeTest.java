package dev.loadflow.evals;

import dev.loadflow.evals.local.LocalRun;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * A rolling upgrade, as a cluster does it: the previous release's load-worker, outbox-dispatcher
 * and timer-pump (built from its release commit by {@code scripts/previous-release}, named by
 * {@code -Dloadflow.upgrade.previous}) run on a schema of their own release's migrations while
 * events flow; this build's migrations are applied under them (the migration Job); this build's
 * three services start beside them on the same database, both releases ingesting, consuming,
 * dispatching and firing at once; then the previous release is stopped while events still flow,
 * and this build carries on alone. The ledger at the end: every event posted logged once with one
 * decision, every outbox row delivered and each message reached its channel once, every timer
 * fired or cancelled, the unanswered loads escalated, nothing held, parked, dead or queued.
 *
 * <p>Not in the test suite (it needs the previous release built); {@code .ci/run} runs it:
 * <pre>
 * scripts/previous-release            # builds the previous release's services under target/previous-release
 * ./mvnw -B -pl evals -am test -Dtest=RollingUpgradeTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dloadflow.excluded.groups=none -Dloadflow.upgrade.previous=target/previous-release
 * </pre>
 */
@Tag("upgrade")
class RollingUpgradeTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** Loads per phase: the previous release alone, both at once, this build alone. */
    private static final int LOADS = 12;
    private static final String DELIVERED = "result=\"delivered\"";

    private static Path previousRoot;
    private static LocalRun stack;
    private static LocalRun.Engine previous;
    private static LocalRun.Engine current;
    private final HttpClient http = HttpClient.newHttpClient();
    private Ledger ledger;

    @BeforeAll
    static void previousReleaseRuns() throws Exception {
        String built = System.getProperty("loadflow.upgrade.previous");
        assertThat(built).as("-Dloadflow.upgrade.previous names the previous release's build (scripts/previous-release)").isNotBlank();
        previousRoot = ROOT.resolve(built).normalize();
        assertThat(previousRoot.resolve("load-worker/target/quarkus-app/quarkus-run.jar")).as("the previous release, packaged").exists();
        // client A's retry-after of 10 s: an unanswered ping's follow-ups and escalation come within the test, fired by
        // whichever pumps run at the time (the first ones while both releases run); an answer comes well before
        stack = new LocalRun(new LocalRun.Options(ROOT, 500, Duration.ofSeconds(10), List.of(), false, false).release(previousRoot));
        stack.start();
        previous = stack.engine();
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.stop();
        }
    }

    @Test
    void nothingIsLostDoubledOrHeldWhileTwoReleasesRunSideBySide() throws Exception {
        ledger = new Ledger(stack);
        int schemaBefore = schemaVersion();
        // the previous release alone, on its own schema
        flow("a", previous, previous);
        assertThat(ledger.metric(previous, 9081, "loadflow_worker_runs_total", "")).as("the previous worker decided phase a").isPositive();
        await().atMost(Duration.ofSeconds(30)).until(() -> ledger.metric(previous, 9082, "loadflow_outbox_sends_total", DELIVERED) > 0);

        // the migration Job of this build, under the running release; then this build's services beside it
        stack.migrate();
        int schemaAfter = schemaVersion();
        System.out.printf("schema V%d (previous release) -> V%d (this build)%n", schemaBefore, schemaAfter);
        current = stack.startEngine(ROOT, 20);
        assertThat(ready(previous, 9081)).as("the previous worker stays ready on the migrated schema").isTrue();

        // both at once: each load's events alternate between the two releases' ingest
        flow("b", previous, current);
        double previousRuns = ledger.metric(previous, 9081, "loadflow_worker_runs_total", "");
        double previousSends = ledger.metric(previous, 9082, "loadflow_outbox_sends_total", DELIVERED);
        double previousFired = ledger.metric(previous, 9083, "loadflow_pump_fired_total", "");

        // the rollout ends: the previous release stops while events still flow and timers are due
        List<String> loadsInFlight = ledger.unanswered();
        previous.stop();
        flow("c", current, current);

        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(ledger::settled);
        double currentRuns = ledger.metric(current, 9081, "loadflow_worker_runs_total", "");
        double currentSends = ledger.metric(current, 9082, "loadflow_outbox_sends_total", DELIVERED);
        double currentFired = ledger.metric(current, 9083, "loadflow_pump_fired_total", "");
        System.out.printf("previous release: %.0f runs, %.0f sends, %.0f timers fired; this build: %.0f runs, %.0f sends, %.0f timers fired%n",
                previousRuns, previousSends, previousFired, currentRuns, currentSends, currentFired);
        assertThat(List.of(currentRuns, currentSends, currentFired)).as("this build decided, sent and fired after the rollout")
                .allSatisfy(n -> assertThat(n).isPositive());
        assertThat(loadsInFlight).as("loads of the previous release still waiting for answers when it stopped").isNotEmpty();
        ledger.check();
        assertThat(errors(previousRoot, 500)).as("errors the previous release logged beside this build").isEmpty();
        assertThat(errors(ROOT, 520)).as("errors this build logged beside the previous release").isEmpty();
    }

    /**
     * The ERROR lines the three services under {@code root} logged in this test (their logs are JSON,
     * one event a line), but for Netty's complaint that a closing connection's listener found the
     * event loop already gone: a stopping process may log it once its shutdown has finished (Quarkus
     * marks such lines), and it tells nothing about the two releases side by side.
     */
    private static List<String> errors(Path root, int offset) throws IOException {
        List<String> errors = new ArrayList<>();
        for (String service : List.of("load-worker", "outbox-dispatcher", "timer-pump")) {
            try (var lines = Files.lines(root.resolve(service).resolve("target/local-run-" + offset + ".log"))) {
                lines.filter(line -> line.contains("\"level\":\"ERROR\"")).filter(line -> !afterShutdown(line))
                        .map(line -> service + ": " + line).forEach(errors::add);
            }
        }
        return errors;
    }

    private static boolean afterShutdown(String line) {
        return line.contains("\"loggerName\":\"io.netty.util.concurrent.DefaultPromise.rejectedExecution\"")
                && line.contains("[Error Occurred After Shutdown]");
    }

    /**
     * {@value #LOADS} loads: each assigned, then a high-risk ping (an SMS, a timer); every other
     * load's driver answers once the SMS is out (the timer cancelled, a Slack post), the others never
     * (their follow-ups and the Hero task come from the timers). Events alternate between
     * {@code first} and {@code second}'s ingest.
     */
    private void flow(String phase, LocalRun.Engine first, LocalRun.Engine second) throws Exception {
        for (int l = 0; l < LOADS; l++) {
            String load = phase + "-L" + l;
            post(first, load, "assign", """
                    {"eventId": "assign", "type": "LoadAssigned", "occurredAt": "2026-12-02T06:55:00Z",
                     "payload": {"clientId": "client-a", "driverPhone": "%s", "stage": "dispatched"}}""".formatted(Ledger.DRIVER));
            post(second, load, "ping", """
                    {"eventId": "ping", "type": "LocationPing", "occurredAt": "2026-12-02T07:00:00Z",
                     "payload": {"risk": "high", "lat": 41.9, "lon": -87.6}}""");
            if (l % 2 == 0) {
                ledger.answered(load);
            } else {
                ledger.unanswered(load);
            }
        }
        for (int l = 0; l < LOADS; l += 2) {
            String load = phase + "-L" + l;
            await().atMost(Duration.ofSeconds(60)).until(() -> ledger.smsTo(load) > 0);
            post(first, load, "reply", """
                    {"eventId": "reply", "type": "InboundSms", "occurredAt": "2026-12-02T07:05:00Z",
                     "payload": {"from": "%s", "text": "ETA 9:30"}}""".formatted(Ledger.DRIVER));
        }
    }

    private void post(LocalRun.Engine engine, String load, String eventId, String json) throws Exception {
        assertThat(engine.post(http, load, json)).as("ingest of %s", json).isEqualTo(202);
        ledger.posted(load, eventId);
    }

    private int schemaVersion() throws Exception {
        return (int) stack.count("SELECT max(version::int) FROM flyway_schema_history WHERE success");
    }

    private boolean ready(LocalRun.Engine engine, int management) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + engine.port(management) + "/q/health/ready")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    }
}
