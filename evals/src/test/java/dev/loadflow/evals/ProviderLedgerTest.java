package dev.loadflow.evals;

import dev.loadflow.evals.local.LocalRun;
import dev.loadflow.evals.sim.ChannelSimulator;
import dev.loadflow.service.testing.UnreliableLink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

import static dev.loadflow.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ledger at the driver's phone. The packaged services send SMS through a stand-in of Twilio's
 * Messages API (create, list, signed status callbacks; no idempotency key) and Hero Slack posts
 * through Slack's Web API, both answering a share of requests with {@code 500}, {@code 429}, a
 * message made and no answer for 15 s, or a message made and the connection dropped; meanwhile the
 * dispatcher and the worker are killed (SIGKILL) and started again, and the services' link to
 * PostgreSQL goes silent and is reset. No driver answers half the loads, so their asks go round
 * every attempt (one text, as the shipped SOP has it, on every attempt) and end with the Hero desk;
 * the other half answer after the first SMS.
 *
 * <p>At the end the provider's messages and the outbox agree: every SMS row dispatched holds
 * exactly one message, its own (by the row its status callback named); no row has two messages,
 * no message is held by two rows, and a message that no dispatched row holds belongs to a row
 * parked ambiguous; every ambiguous row was escalated (its outcome logged, a Hero task sent) or
 * resolved; nothing is left pending.
 *
 * <p>Not in the test suite (packaged services for minutes); {@code .ci/run} runs a short one.
 * {@code -Dloadflow.ledger.loads=N}, {@code -Dloadflow.ledger.fault-rate=0.15} and
 * {@code -Dloadflow.ledger.seed=S} size it:
 * <pre>
 * ./mvnw -B -pl evals test -Dtest=ProviderLedgerTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dloadflow.excluded.groups=none -Dloadflow.ledger.loads=200
 * </pre>
 */
@Tag("crash")
class ProviderLedgerTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final int LOADS = Integer.getInteger("loadflow.ledger.loads", 24);
    private static final double FAULT_RATE = Double.parseDouble(System.getProperty("loadflow.ledger.fault-rate", "0.15"));
    private static final long SEED = Long.getLong("loadflow.ledger.seed", 7);
    /** Between attempts of an unanswered ask. */
    private static final Duration RETRY_AFTER = Duration.ofSeconds(20);

    private static LocalRun stack;
    private static final AtomicReference<UnreliableLink> LINK = new AtomicReference<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        // what a killed process held comes back in seconds: a run's message, a claimed row, a claimed timer
        stack = new LocalRun(new LocalRun.Options(ROOT, 900, RETRY_AFTER, List.of(), false, false, true).engine(List.of(
                "-Dloadflow.queue.visibility-timeout=PT20S", "-Dloadflow.worker.run-deadline=PT10S",
                "-Dloadflow.dispatcher.lease=PT20S", "-Dloadflow.pump.claim-lease=PT10S")))
                .databaseVia(hostPort -> {
                    int colon = hostPort.lastIndexOf(':');
                    UnreliableLink link = UnreliableLink.to(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
                    LINK.set(link);
                    return "127.0.0.1:" + link.port();
                });
        stack.start();
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.stop();
        }
        if (LINK.get() != null) {
            LINK.get().close();
        }
    }

    private static String driverOf(int load) {
        return "+1555%07d".formatted(2_000_000 + load);
    }

    @Test
    void theProvidersMessagesAndTheOutboxAgreeAfterFaultsKillsAndStalls() throws Exception {
        ChannelSimulator providers = stack.simulator();
        providers.providerFaults(FAULT_RATE, SEED);
        LocalRun.Engine engine = stack.engine();
        List<String> loads = new ArrayList<>();
        for (int l = 0; l < LOADS; l++) {
            String load = "ledger-L" + l;
            loads.add(load);
            postUntilAccepted(load, """
                    {"eventId": "assign", "type": "LoadAssigned", "occurredAt": "2026-12-04T06:55:00Z",
                     "payload": {"clientId": "client-a", "driverPhone": "%s", "stage": "dispatched"}}""".formatted(driverOf(l)));
            postUntilAccepted(load, """
                    {"eventId": "ping", "type": "LocationPing", "occurredAt": "2026-12-04T07:00:00Z",
                     "payload": {"risk": "high", "lat": 41.9, "lon": -87.6}}""");
        }

        // the dispatcher dies with sends in flight, then the link to PostgreSQL goes silent and is reset
        await().atMost(Duration.ofSeconds(60)).until(() -> providers.twilioMessageRows().size() >= LOADS / 3);
        engine.kill("outbox-dispatcher");
        engine.restart("outbox-dispatcher");
        // silent until the services notice (their readiness goes down), then back
        LINK.get().stall();
        await().atMost(Duration.ofSeconds(60)).until(() -> readiness(engine.port(9082)) != 200
                && readiness(engine.port(9081)) != 200);
        LINK.get().heal();
        answerHalf(loads);
        LINK.get().reset();
        engine.kill("load-worker");
        engine.restart("load-worker");

        // every ask ends: answered, or with the Hero desk after its attempts; nothing left pending
        await().atMost(Duration.ofMinutes(6)).pollInterval(Duration.ofSeconds(2)).until(() ->
                stack.count("SELECT count(*) FROM outbox WHERE status = 'pending'") == 0
                        && stack.count("SELECT count(*) FROM load_queue") == 0
                        && stack.count("SELECT count(*) FROM timers WHERE status = 'scheduled'") == 0);

        Map<String, List<String>> messagesOfRow = new HashMap<>();
        providers.twilioMessageRows().forEach((sid, row) -> messagesOfRow.computeIfAbsent(row, r -> new ArrayList<>()).add(sid));
        List<Map<String, Object>> rows = stack.rows("SELECT outbox_id, status, receipt FROM outbox WHERE channel = 'sms'");
        Map<String, Integer> byStatus = new TreeMap<>();
        List<String> ambiguous = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            String id = (String) row.get("outbox_id");
            String status = (String) row.get("status");
            List<String> messages = messagesOfRow.getOrDefault(id, List.of());
            byStatus.merge(status, 1, Integer::sum);
            assertThat(messages).as("%s (%s) sent at most once", id, status).hasSizeLessThanOrEqualTo(1);
            switch (status) {
                case "dispatched" -> assertThat(row.get("receipt")).as("%s holds its own message", id)
                        .isEqualTo(messages.isEmpty() ? "a message of its own" : messages.getFirst());
                case "dead" -> assertThat(messages).as("%s died unsent", id).isEmpty();
                case "ambiguous" -> ambiguous.add(id);
                default -> throw new AssertionError(id + " left " + status);
            }
        }
        assertThat(messagesOfRow.keySet()).as("every message at Twilio names an SMS row")
                .allMatch(row -> rows.stream().anyMatch(r -> r.get("outbox_id").equals(row)));
        assertThat(rows.stream().filter(r -> "dispatched".equals(r.get("status"))).map(r -> r.get("receipt")))
                .as("no message is the receipt of two rows").doesNotHaveDuplicates();
        for (String id : ambiguous) {
            assertThat(stack.count("SELECT count(*) FROM event_log WHERE entry_id = 'out:" + id + ":ambiguous'"))
                    .as("%s: its load heard it may not have reached the driver", id).isOne();
        }
        List<String> heroTasks = providers.delivered("hero").stream().map(ChannelSimulator.Delivery::idempotencyKey).toList();
        assertThat(heroTasks).as("each escalation once").doesNotHaveDuplicates();
        for (String id : ambiguous) {
            String[] key = id.split("/");
            String escalation = key[0] + "/out:" + key[1] + ":" + key[2] + ":send_sms:ambiguous:1/1/create_hero_task";
            boolean answeredMeanwhile = stack.count("SELECT count(*) FROM event_log WHERE entry_id = 'dec:out:" + id
                    + ":ambiguous' AND body->>'reason' LIKE '%no longer open%'") == 1;
            assertThat(heroTasks.contains(escalation) || answeredMeanwhile)
                    .as("%s escalated to the Hero desk (or its ask was answered before)", id).isTrue();
        }
        List<Map<String, Object>> slack = stack.rows(
                "SELECT receipt FROM outbox WHERE channel = 'slack' AND status = 'dispatched'");
        assertThat(slack.stream().map(r -> r.get("receipt"))).as("no Slack post is the receipt of two rows")
                .doesNotHaveDuplicates();
        assertThat(providers.delivered("slack").size()).as("no Hero Slack post more than once per row")
                .isLessThanOrEqualTo((int) stack.count("SELECT count(*) FROM outbox WHERE channel = 'slack'"));
        Map<String, Long> slackByStatus = new TreeMap<>();
        stack.rows("SELECT status, count(*) AS n FROM outbox WHERE channel = 'slack' GROUP BY status")
                .forEach(r -> slackByStatus.put((String) r.get("status"), ((Number) r.get("n")).longValue()));
        System.out.printf("provider ledger: %d loads, fault rate %.2f (seed %d), faults met %s: SMS rows %s, %d messages "
                        + "at Twilio, %d Hero tasks; Slack rows %s, %d posts%n", LOADS, FAULT_RATE, SEED, providers.faultsMet(),
                byStatus, providers.twilioMessageRows().size(), heroTasks.size(), slackByStatus,
                providers.delivered("slack").size());
    }

    private int readiness(int managementPort) {
        try {
            return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + managementPort
                    + "/q/health/ready")).timeout(Duration.ofSeconds(5)).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (java.io.IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    /** The drivers of the even loads answer their first SMS, through Twilio's signed webhook. */
    private void answerHalf(List<String> loads) throws Exception {
        for (int l = 0; l < loads.size(); l += 2) {
            byte[] bytes = new byte[16];
            ThreadLocalRandom.current().nextBytes(bytes);
            String sid = "SM" + HexFormat.of().formatHex(bytes);
            String from = driverOf(l);
            await().atMost(Duration.ofSeconds(60)).until(() -> stack.driverWrites(sid, from, "ETA 9:30") == 200);
        }
    }

    private void postUntilAccepted(String load, String json) {
        await().atMost(Duration.ofSeconds(60)).until(() -> stack.post(http, load, json) / 100 == 2);
    }
}
