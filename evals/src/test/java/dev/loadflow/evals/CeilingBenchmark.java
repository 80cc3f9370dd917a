package dev.loadflow.evals;

import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Benchmark, not a test: the ceiling. pgbench runs a transaction of the same shape as one
 * decision's (two log rows and two outbox rows, one commit) on the same server, so every other
 * figure can be read as a fraction of what PostgreSQL itself does on this machine. Run:
 * <pre>
 * QUARKUS_DATASOURCE_JDBC_URL=jdbc:postgresql://127.0.0.1:5432/postgres \
 *   ./mvnw -B -pl evals test -Dtest=CeilingBenchmark -Dloadflow.excluded.groups=none
 * </pre>
 */
@Tag("benchmark")
class CeilingBenchmark {

    private static final String DECISION = """
            \\set n random(1, 9000000000000000000)
            BEGIN;
            INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, body) VALUES
              ('pgb-' || :n || '-' || :client_id, 1, 'ping', 'event', 'LocationPing', now(), now(), '{"risk": "high"}'),
              ('pgb-' || :n || '-' || :client_id, 2, 'dec:ping', 'decision', 'DecisionRecorded', now(), now(), '{"actions": []}');
            INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, attempts, available_at, created_at) VALUES
              ('pgb-' || :n || '-' || :client_id || '/sms', 'pgb-' || :n, 'send_sms', 'sms', '{}', 'pending', 0, now(), now()),
              ('pgb-' || :n || '-' || :client_id || '/tmr', 'pgb-' || :n, 'set_timer', 'internal', '{}', 'pending', 0, now(), now());
            END;
            """;

    @Test
    void decisionTransactionsPerSecond() throws Exception {
        StringBuilder table = new StringBuilder(String.format("%n== ceiling: pgbench, one decision-shaped transaction, %d cores ==%n",
                Runtime.getRuntime().availableProcessors()));
        for (int clients : new int[]{1, 8}) {
            table.append(String.format("%d client(s): %.1f decision transactions per second%n", clients, decisionsPerSecond(clients)));
        }
        System.out.println(table);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "benchmark-ceiling.txt"), table);
    }

    /**
     * What PostgreSQL itself does here: pgbench running {@link #DECISION} for 10 seconds with
     * {@code clients} connections, on a database of its own. The other benchmarks divide by it.
     */
    static double decisionsPerSecond(int clients) throws Exception {
        assumeTrue(System.getenv("QUARKUS_DATASOURCE_JDBC_URL") != null,
                "benchmarks run on a real PostgreSQL with fsync on: set QUARKUS_DATASOURCE_JDBC_URL");
        try (TestDatabase db = PostgresServer.get().createDatabase("bench_ceiling")) {
            Path script = Files.createTempFile("decision", ".sql");
            Files.writeString(script, DECISION);
            PostgresServer server = PostgresServer.get();
            ProcessBuilder pb = new ProcessBuilder("pgbench", "-n", "-f", script.toString(), "-c", String.valueOf(clients),
                    "-j", "2", "-T", "10", "-h", server.host(), "-p", String.valueOf(server.port()), "-U", server.user(), db.name())
                    .redirectErrorStream(true);
            pb.environment().put("PGPASSWORD", server.password());
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor()).as(out).isZero();
            Matcher tps = Pattern.compile("tps = ([0-9.]+)").matcher(out);
            assertThat(tps.find()).as(out).isTrue();
            Files.delete(script);
            return Double.parseDouble(tps.group(1));
        }
    }
}
