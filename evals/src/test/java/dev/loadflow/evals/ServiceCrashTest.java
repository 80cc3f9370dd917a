package dev.loadflow.evals;

import dev.loadflow.evals.local.LocalRun;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * Each packaged service killed with SIGKILL while it has work, then started again, as a node
 * failure and Kubernetes's restart do: the load-worker while a source posts (its ingest and its
 * runs in flight), the timer-pump as follow-ups come due, the outbox-dispatcher with rows
 * pending. Every other load's driver answers at once; the others never do, so their follow-ups and
 * Hero tasks come from timers fired around the pump's death. On the database the environment names ({@code QUARKUS_DATASOURCE_JDBC_URL}; on a Citus
 * coordinator the tables are distributed by load) or an embedded PostgreSQL. The leases are
 * shortened so that what a killed process held comes back within the test. The ledger at the
 * end ({@link Ledger}): every event accepted logged once with one decision, each message at its
 * channel once, every timer fired or cancelled, nothing held, parked or dead.
 *
 * <p>Not in the test suite (two minutes of processes); {@code .ci/run} runs it on the Citus cluster:
 * <pre>
 * QUARKUS_DATASOURCE_JDBC_URL=jdbc:postgresql://127.0.0.1:5440/postgres QUARKUS_DATASOURCE_USERNAME=loadflow \
 *     QUARKUS_DATASOURCE_PASSWORD=loadflow ./mvnw -B -pl evals -am test -Dtest=ServiceCrashTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dloadflow.excluded.groups=none
 * </pre>
 */
@Tag("crash")
class ServiceCrashTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final int LOADS = 40;

    private static LocalRun stack;
    private static LocalRun.Engine engine;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        // what a killed process held comes back in seconds: a run's message, a claimed row, a claimed timer
        stack = new LocalRun(new LocalRun.Options(ROOT, 700, Duration.ofSeconds(10), List.of(), false, false).engine(List.of(
                "-Dloadflow.queue.visibility-timeout=PT20S", "-Dloadflow.worker.run-deadline=PT10S",
                "-Dloadflow.dispatcher.lease=PT20S", "-Dloadflow.pump.claim-lease=PT10S")));
        stack.start();
        engine = stack.engine();
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.stop();
        }
    }

    @Test
    void nothingIsLostOrDoubledWhenEachServiceIsKilledWhileItWorks() throws Exception {
        Ledger ledger = new Ledger(stack);
        System.out.printf("database: %s%n", stack.citus() ? "Citus, distributed by load" : "PostgreSQL");

        // the worker killed while a source posts: its runs of the first loads in flight, the rest posted
        // while it is down (refused, and posted again) and after it is back
        CountDownLatch killed = new CountDownLatch(1);
        CompletableFuture<Void> posting = CompletableFuture.runAsync(() -> {
            for (int l = 0; l < LOADS; l++) {
                if (l == LOADS / 4) {
                    awaitUninterruptibly(killed);
                }
                String load = "k-L" + l;
                postUntilAccepted(ledger, load, "assign", """
                        {"eventId": "assign", "type": "LoadAssigned", "occurredAt": "2026-12-02T06:55:00Z",
                         "payload": {"clientId": "client-a", "driverPhone": "%s", "stage": "dispatched"}}""".formatted(Ledger.DRIVER));
                postUntilAccepted(ledger, load, "ping", """
                        {"eventId": "ping", "type": "LocationPing", "occurredAt": "2026-12-02T07:00:00Z",
                         "payload": {"risk": "high", "lat": 41.9, "lon": -87.6}}""");
                if (l % 2 == 0) { // the driver answers at once: the reply closes the ask the ping opened
                    postUntilAccepted(ledger, load, "reply", """
                            {"eventId": "reply", "type": "InboundSms", "occurredAt": "2026-12-02T07:05:00Z",
                             "payload": {"from": "%s", "text": "ETA 9:30"}}""".formatted(Ledger.DRIVER));
                    ledger.answered(load);
                } else {
                    ledger.unanswered(load);
                }
            }
        });
        await().atMost(Duration.ofMinutes(1)).until(() -> ledger.unanswered().size() >= LOADS / 8);
        long queued = stack.count("SELECT count(*) FROM load_queue");
        engine.kill("load-worker");
        killed.countDown();
        engine.restart("load-worker");
        posting.get(2, TimeUnit.MINUTES);

        // the pump killed as the unanswered loads' follow-ups come due, with more scheduled behind them
        await().atMost(Duration.ofMinutes(1)).until(() -> stack.count("SELECT count(*) FROM timers WHERE status = 'fired'") > 0
                && stack.count("SELECT count(*) FROM timers WHERE status = 'scheduled'") >= LOADS / 8);
        long scheduled = stack.count("SELECT count(*) FROM timers WHERE status = 'scheduled'");
        engine.kill("timer-pump");
        engine.restart("timer-pump");

        // the dispatcher killed with rows pending (or claimed by it): the follow-ups the pump's timers decided
        await().atMost(Duration.ofMinutes(1)).until(() -> stack.count("SELECT count(*) FROM outbox WHERE status = 'pending'") > 0);
        long unsent = stack.count("SELECT count(*) FROM outbox WHERE status = 'pending'");
        engine.kill("outbox-dispatcher");
        engine.restart("outbox-dispatcher");

        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).untilAsserted(ledger::settled);
        // each service, started again, took over its work: the restarted processes' own counters
        assertThat(ledger.metric(engine, 9081, "loadflow_worker_runs_total", "")).as("runs of the restarted worker").isPositive();
        assertThat(ledger.metric(engine, 9083, "loadflow_pump_fired_total", "")).as("timers the restarted pump fired").isPositive();
        assertThat(ledger.metric(engine, 9082, "loadflow_outbox_sends_total", "result=\"delivered\""))
                .as("sends of the restarted dispatcher").isPositive();
        System.out.printf("killed: the worker with %d messages queued, the pump with %d timers scheduled, the dispatcher with "
                + "%d rows pending%n", queued, scheduled, unsent);
        ledger.check();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Posts until the ingest accepts the event ({@code 202}, or {@code 200} for a copy it already has), as a source retries. */
    private void postUntilAccepted(Ledger ledger, String load, String eventId, String json) {
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> List.of(200, 202).contains(stack.post(http, load, json)));
        ledger.posted(load, eventId);
    }
}
