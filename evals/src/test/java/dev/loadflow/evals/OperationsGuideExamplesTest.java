package dev.loadflow.evals;

import dev.loadflow.evals.local.LocalRun;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * The operations guide's hand-typed examples, run as a reader would run them: each block marked
 * {@code <!-- example: name -->} in {@code docs/operations.md} and {@code docs/admin.md} is executed
 * by bash, with the {@code export} lines the local run prints (INGEST_TOKEN, VIEWER, OPERATOR),
 * against the packaged services of a local run (its ports moved by 600). A guide whose example stops working fails here.
 */
class OperationsGuideExamplesTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern EXAMPLE = Pattern.compile("<!-- example: ([a-z0-9-]+)[^>]*-->\\s*```bash\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern LOCAL_PORT = Pattern.compile("localhost:(8\\d{3}|9\\d{3})");

    /** A high-risk ping (event ping_0700) posted to the load {@code %s} as a source would. */
    private static final String HIGH_RISK_PING = """
            curl -s localhost:8081/loads/%s/events -H "Authorization: Bearer $INGEST_TOKEN" \\
              -H 'content-type: application/json' -d '{"eventId":"ping_0700","type":"LocationPing",
              "occurredAt":"2026-11-30T07:00:00Z","payload":{"risk":"high","lat":41.9,"lon":-87.6}}'
            """;

    private static LocalRun stack;
    private static Map<String, String> examples;

    @BeforeAll
    static void startTheLocalRun() throws Exception {
        examples = new LinkedHashMap<>(examples(ROOT.resolve("docs/operations.md")));
        examples.putAll(examples(ROOT.resolve("docs/admin.md")));
        stack = new LocalRun(new LocalRun.Options(ROOT, 600, Duration.ofSeconds(15), List.of(), false, false));
        stack.start();
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.stop();
        }
    }

    @Test
    void theGuidesFirstStoryIngestsALoadAndReadsItsOpenAsk() throws Exception {
        assertThat(examples).containsKeys("ingest-by-hand", "read-the-load");

        String ingested = run(examples.get("ingest-by-hand"));

        assertThat(Pattern.compile("HTTP/1\\.1 202 ").matcher(ingested).results().count())
                .as("both events queued, neither seen before:%n%s", ingested).isEqualTo(2);
        assertThat(ingested).contains("\"status\":\"queued\"");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            String read = run(examples.get("read-the-load"));
            assertThat(read.lines().findFirst()).as("the log's version: both events and their decisions, at least")
                    .hasValueSatisfying(version -> assertThat(version).matches("\\d+")
                            .satisfies(v -> assertThat(Integer.parseInt(v)).isGreaterThanOrEqualTo(4)));
            assertThat(read).as("the open ask the high-risk ping opened").contains("ask:eta_request:ping_0700");
        });
        assertThat(run(examples.get("ingest-by-hand"))).as("the same events again change nothing")
                .doesNotContain("HTTP/1.1 202").contains("HTTP/1.1 200");
    }

    @Test
    void theGuidesBackupRestoresIntoADatabaseOfItsOwnWithTheLoadsWholeLog() throws Exception {
        assertThat(examples).containsKeys("ingest-by-hand", "backup-and-restore");
        run(examples.get("ingest-by-hand"));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> stack.count("SELECT count(*) FROM event_log WHERE load_id = '500001'") >= 4);
        long live = stack.count("SELECT count(*) FROM event_log WHERE load_id = '500001'");

        String restored = run(examples.get("backup-and-restore"));

        assertThat(restored.strip().lines().reduce((first, last) -> last))
                .as("the restored database's count of the load's log entries:%n%s", restored)
                .hasValueSatisfying(count -> assertThat(Long.parseLong(count.strip())).isGreaterThanOrEqualTo(live));
    }

    @Test
    void theGuidesReplayDryRunFindsAnSmsTheChannelRefusedAndChangesNothing() throws Exception {
        assertThat(examples).containsKeys("replay-dry-run");
        smsRefusedFor("500002", "+15550112");
        long dead = stack.count("SELECT count(*) FROM outbox WHERE status = 'dead' AND channel = 'sms'");

        String answer = run(examples.get("replay-dry-run"));

        assertThat(answer).as("the dead row and why it died:%n%s", answer).contains("/send_sms\"").contains("400");
        assertThat(answer).as("the dry run counts it:%n%s", answer).contains("\"matched\":" + dead);
        assertThat(stack.count("SELECT count(*) FROM outbox WHERE status = 'dead' AND channel = 'sms'"))
                .as("a dry run changes nothing").isEqualTo(dead);
    }

    @Test
    void theGuidesAdminReplayRequeuesTheRefusedSmsAndTheAuditTrailNamesWhoDidIt() throws Exception {
        assertThat(examples).containsKeys("admin-replay", "audit-trail");
        String sms = smsRefusedFor("481210", "+15550113");

        String replayed = run(examples.get("admin-replay"));

        assertThat(replayed).as("the dead list, then the replay's answer:%n%s", replayed)
                .contains("\"" + sms + "\"").containsPattern("\"replayed\":1,\"auditId\":\\d+");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> stack.count("SELECT count(*) FROM outbox WHERE status = 'dispatched' AND outbox_id = '" + sms + "'") == 1);

        String trail = run(examples.get("audit-trail"));

        assertThat(trail).as("the replay in the audit trail, by whom:%n%s", trail)
                .contains("\"local-operator\",\"outbox-dispatcher\",\"outbox.replay\",\"" + sms + "\"");
    }

    @Test
    void theGuidesHeldLoadRepairRetriesOneSkipsAnotherAndPreviewsTheBulkSkipOfTheThird() throws Exception {
        assertThat(examples).containsKeys("held-loads");
        for (String load : List.of("481207", "481208", "481209")) {
            // a garbled reply, as a broken gateway writes it: the worker cannot read it and holds the load
            stack.sql("""
                    INSERT INTO load_queue (load_id, message_id, body, enqueued_at) VALUES ('%1$s', 'sms_0711', '{"eventId": "sms_0711"}', now());
                    INSERT INTO load_queue_group (load_id, visible_at) VALUES ('%1$s', now()) ON CONFLICT (load_id) DO NOTHING;
                    SELECT pg_notify('loadflow_queue', '%1$s');""".formatted(load));
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> stack.count("SELECT count(*) FROM held_load WHERE load_id IN ('481207', '481208', '481209')") == 3);

        String answer = run(examples.get("held-loads"));

        assertThat(answer).as("the list names each load's head and why:%n%s", answer)
                .contains("{\"loadId\":\"481209\",\"messageId\":\"sms_0711\",\"messageType\":\"unreadable\"");
        assertThat(answer).as("the retry and the skip, each audited:%n%s", answer)
                .containsPattern("\\{\"loadId\":\"481207\",[^}]*\"auditId\":\\d+")
                .containsPattern("\\{\"loadId\":\"481208\",[^}]*\"state\":\"skipped\",\"auditId\":\\d+");
        assertThat(answer).as("the dry run lists the third, not the skipped one:%n%s", answer)
                .containsPattern("\"action\":\"skip\",\"matched\":\\d+,\"loads\":\\[.*\"loadId\":\"481209\"");
        assertThat(answer.strip().lines().reduce((first, last) -> last)).as("the dry run, the last answer")
                .hasValueSatisfying(dryRun -> assertThat(dryRun).contains("481209").doesNotContain("481208"));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            assertThat(stack.count("SELECT count(*) FROM event_log WHERE load_id = '481208' AND kind = 'skipped'"))
                    .as("481208's log holds the skip, with the operator's reason").isEqualTo(1);
            assertThat(stack.count("SELECT count(*) FROM held_load WHERE load_id = '481208'")).as("481208 released").isZero();
        });
        assertThat(stack.count("SELECT count(*) FROM held_load WHERE load_id = '481209' AND state = 'held'"))
                .as("a dry run skips nothing").isEqualTo(1);
    }

    @Test
    void theGuidesAcknowledgementsMarkADeadRowWithItsAlertAnAlertAloneAndAParkedMessageHandled() throws Exception {
        assertThat(examples).containsKeys("acknowledge");
        String handledByPhone = heroTaskRefusedFor("481211");
        String outage = heroTaskRefusedFor("481212");
        // parked earlier, as a worker with on-poison=skip parks a message it cannot read
        stack.sql("""
                INSERT INTO load_queue_dead (load_id, message_id, body, enqueued_at, receive_count, parked_at, reason)
                VALUES ('481213', 'garbled', '{"eventId": "garbled"}', now(), 1, now(), 'unreadable: no type')""");

        String answer = run(examples.get("acknowledge"));

        assertThat(answer).as("three acknowledgements, each audited:%n%s", answer)
                .containsPattern("\\{\"target\":\"" + Pattern.quote(handledByPhone) + "\",\"acknowledged\":true,\"auditId\":\\d+}")
                .containsPattern("\"acknowledged\":true,\"auditId\":\\d+}\\s+\\{\"loadId\":\"481213\",\"messageId\":\"garbled\",\"acknowledged\":true");
        assertThat(stack.count("SELECT count(*) FROM outbox WHERE outbox_id = '" + handledByPhone
                + "' AND status = 'dead' AND acknowledged_at IS NOT NULL")).as("the row stays dead, marked handled").isEqualTo(1);
        assertThat(stack.count("SELECT count(*) FROM ops_alert WHERE outbox_id IN ('" + handledByPhone + "', '" + outage
                + "') AND acknowledged_at IS NOT NULL")).as("the row's alert with it; the other alone").isEqualTo(2);
        assertThat(stack.count("SELECT count(*) FROM outbox WHERE outbox_id = '" + outage + "' AND acknowledged_at IS NULL"))
                .as("acknowledging an alert leaves its row waiting").isEqualTo(1);
        assertThat(stack.count("SELECT count(*) FROM load_queue_dead WHERE load_id = '481213' AND acknowledged_at IS NOT NULL"))
                .as("the parked message stays, marked handled").isEqualTo(1);
    }

    /**
     * Posts a high-risk ping to the unassigned {@code load}, the channel refusing the Hero task it
     * raises ({@code 400}); waits until that row is dead and its alert raised, and returns the row's id.
     */
    private static String heroTaskRefusedFor(String load) throws Exception {
        stack.simulator().failNext("hero", 400, 1);
        run(HIGH_RISK_PING.formatted(load));
        String task = load + "/evt:ping_0700/1/create_hero_task";
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> stack.count("SELECT count(*) FROM ops_alert WHERE outbox_id = '" + task + "'") == 1);
        return task;
    }

    /**
     * Assigns {@code load} to a driver and posts a high-risk ping, the channel refusing the SMS
     * that asks for an ETA ({@code 400}); waits until that SMS row is dead and returns its id.
     */
    private static String smsRefusedFor(String load, String driverPhone) throws Exception {
        stack.simulator().failNext("sms", 400, 1);
        run("""
                curl -s localhost:8081/loads/%1$s/events -H "Authorization: Bearer $INGEST_TOKEN" \\
                  -H 'content-type: application/json' -d '{"eventId":"assign_1","type":"LoadAssigned",
                  "occurredAt":"2026-11-30T06:55:00Z","payload":{"clientId":"client-a","driverPhone":"%2$s","stage":"dispatched"}}'
                """.formatted(load, driverPhone) + HIGH_RISK_PING.formatted(load));
        String sms = load + "/ask:eta_request:ping_0700/1/send_sms";
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> stack.count("SELECT count(*) FROM outbox WHERE status = 'dead' AND outbox_id = '" + sms + "'") == 1);
        return sms;
    }

    /** The marked bash blocks of the guide, by name. */
    private static Map<String, String> examples(Path guide) throws IOException {
        Map<String, String> found = new LinkedHashMap<>();
        Matcher m = EXAMPLE.matcher(Files.readString(guide));
        while (m.find()) {
            found.put(m.group(1), m.group(2));
        }
        return found;
    }

    /** Runs a block as a reader would, with the local run's credentials exported and its ports in place of the guide's. */
    private static String run(String block) throws Exception {
        String script = LOCAL_PORT.matcher(block).replaceAll(p -> "localhost:" + stack.portOf(Integer.parseInt(p.group(1))));
        ProcessBuilder bash = new ProcessBuilder("bash", "-euo", "pipefail", "-c", script).redirectErrorStream(true);
        bash.environment().put("INGEST_TOKEN", stack.ingestToken());
        bash.environment().put("VIEWER", stack.viewer());
        bash.environment().put("OPERATOR", stack.operator());
        bash.environment().put("DATABASE_URL", stack.databaseUrl());
        Process process = bash.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("the example's exit status; it printed:%n%s", output).isZero();
        return output;
    }
}
