package dev.loadflow.evals;

import dev.loadflow.evals.local.LocalRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Benchmark, not a test (excluded from the suite): does anything grow? The deployment shape of
 * {@link DeploymentBenchmark} (three packaged services, HTTP ingest, fsync on), measured on an
 * empty database, then again after 10,000,000 log entries, 1,000,000 outbox rows and 1,000,000
 * timers of earlier loads were written into it, then soaked at 100 inbound events/s on that
 * database for {@code loadflow.bench.soak-minutes} (30), one line a minute: p99 ingest→SMS, and
 * for {@code load_queue}, {@code load_queue_group}, {@code outbox} and {@code timers} their size,
 * dead tuples and autovacuum runs. Every minute ends with the ledger check. Autovacuum must be on,
 * as in production: on a server where it is off, the benchmark turns it on for its run
 * ({@code ALTER SYSTEM}, reset at the end).
 * <pre>
 * QUARKUS_DATASOURCE_JDBC_URL=jdbc:postgresql://127.0.0.1:5432/postgres ./mvnw -B -pl evals test -Dtest=GrowthBenchmark -Dloadflow.excluded.groups=none
 * </pre>
 */
@Tag("benchmark")
class GrowthBenchmark {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final List<String> HOT_TABLES = List.of("load_queue", "load_queue_group", "outbox", "timers");

    /** One minute at 100 events/s: 285 loads of 21 events. */
    static final DeploymentBenchmark.Config SOAK_MINUTE = new DeploymentBenchmark.Config("soak minute", 285, 21, 100);

    static final List<DeploymentBenchmark.Config> CONFIGS = List.of(
            new DeploymentBenchmark.Config("100 ev/s offered, 60 s", 285, 21, 100),
            new DeploymentBenchmark.Config("flat out, 100 loads", 100, 41, 0));

    @Test
    void growthAndSoak() throws Exception {
        assumeTrue(System.getenv("QUARKUS_DATASOURCE_JDBC_URL") != null,
                "a benchmark runs against a real PostgreSQL server with fsync on: set QUARKUS_DATASOURCE_JDBC_URL");
        int soakMinutes = Integer.getInteger("loadflow.bench.soak-minutes", 30);
        long logRows = Long.getLong("loadflow.bench.log-rows", 10_000_000);
        LocalRun stack = new LocalRun(new LocalRun.Options(ROOT, 400, Duration.ofMinutes(30), List.of(), false, false));
        StringBuilder out = new StringBuilder();
        Autovacuum autovacuum = null;
        try (DeploymentBenchmark.Driver driver = new DeploymentBenchmark.Driver(stack)) {
            stack.start();
            autovacuum = Autovacuum.on(stack);
            driver.warmUp();
            driver.run("warm-rate", SOAK_MINUTE);
            List<DeploymentBenchmark.Figures> empty = new ArrayList<>();
            for (int i = 0; i < CONFIGS.size(); i++) {
                empty.add(driver.run("e" + i, CONFIGS.get(i)));
            }

            long populateStart = System.nanoTime();
            populate(stack, logRows);
            double populateSeconds = (System.nanoTime() - populateStart) / 1e9;
            // a database that has held this much for a while has been vacuumed and checkpointed
            long settleStart = System.nanoTime();
            stack.sql("VACUUM (ANALYZE)");
            stack.sql("CHECKPOINT");
            double settleSeconds = (System.nanoTime() - settleStart) / 1e9;
            String sizes = sizes(stack);

            List<DeploymentBenchmark.Figures> full = new ArrayList<>();
            for (int i = 0; i < CONFIGS.size(); i++) {
                full.add(driver.run("f" + i, CONFIGS.get(i)));
            }
            out.append(String.format("%n== growth: %d cores; the same runs on an empty database and after %,d log entries,%n"
                    + "   1,000,000 outbox rows and 1,000,000 timers of earlier loads (written in %.0f s, vacuumed in %.0f s) ==%n",
                    Runtime.getRuntime().availableProcessors(), logRows, populateSeconds, settleSeconds));
            out.append(sizes);
            out.append(String.format("%-30s %10s %10s %8s | %9s %9s %8s%n", "run", "empty ev/s", "full ev/s", "ratio",
                    "empty p99", "full p99", "ratio"));
            for (int i = 0; i < CONFIGS.size(); i++) {
                var e = empty.get(i);
                var f = full.get(i);
                out.append(String.format("%-30s %10.1f %10.1f %8.3f | %9.1f %9.1f %8.3f%n", CONFIGS.get(i).name(),
                        e.eventsPerSecond(), f.eventsPerSecond(), f.eventsPerSecond() / e.eventsPerSecond(),
                        e.p99Millis(), f.p99Millis(), f.p99Millis() / e.p99Millis()));
            }
            System.out.println(out);

            out.append(String.format("%n== soak: %d minutes at 100 inbound events/s on that database ==%n", soakMinutes));
            out.append(String.format("%-4s %8s %8s", "min", "ev/s", "p99 ms"));
            HOT_TABLES.forEach(t -> out.append(String.format(" | %-16s %7s %6s %3s", t, "kB", "dead", "av")));
            out.append(String.format("%n"));
            List<Double> p99s = new ArrayList<>();
            for (int m = 0; m < soakMinutes; m++) {
                var minute = driver.run("s" + m, SOAK_MINUTE);
                assertThat(minute.eventsPerSecond()).as("minute %d: the offered 100 events/s got through", m + 1)
                        .isGreaterThan(95);
                p99s.add(minute.p99Millis());
                String line = String.format("%-4d %8.1f %8.1f", m + 1, minute.eventsPerSecond(), minute.p99Millis())
                        + tableStats(stack) + String.format("%n");
                out.append(line);
                System.out.print(line);
            }
            out.append(String.format("(kB: the table with its indexes and TOAST; dead: n_dead_tup; av: autovacuum runs so far)%n"));
            out.append(trend(p99s));
            System.out.println(out);
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "benchmark-growth.txt"), out.toString());
        } finally {
            if (autovacuum != null) {
                autovacuum.close();
            }
            stack.stop();
        }
    }

    /** The soak's first and last fifths side by side: mean and worst p99. */
    private static String trend(List<Double> p99s) {
        int fifth = Math.max(1, p99s.size() / 5);
        var first = p99s.subList(0, fifth).stream().mapToDouble(Double::doubleValue).summaryStatistics();
        var last = p99s.subList(p99s.size() - fifth, p99s.size()).stream().mapToDouble(Double::doubleValue).summaryStatistics();
        return String.format("p99 over the first %d minutes: mean %.1f ms, worst %.1f; over the last %d: mean %.1f ms, worst %.1f%n",
                fifth, first.getAverage(), first.getMax(), fifth, last.getAverage(), last.getMax());
    }

    /**
     * Earlier loads, as weeks of traffic leave them: 40 log entries each (events and decisions),
     * dispatched outbox rows and fired or cancelled timers, recorded three days before the runs. Written
     * in slices of a million rows, then analysed, as autovacuum would.
     */
    private static void populate(LocalRun stack, long logRows) throws Exception {
        // recent enough that no pruning (7 days for dispatched rows and finished timers) takes them during the run
        String base = "'" + Clock.systemUTC().instant().minus(Duration.ofDays(3)) + "'";
        long loads = logRows / 40;
        for (long from = 0; from < loads; from += 25_000) {
            stack.sql("""
                    INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, correlation_id, body)
                    SELECT 'old-' || l, s, CASE WHEN s %% 2 = 1 THEN 'e' || s ELSE 'dec:e' || (s - 1) END,
                           CASE WHEN s %% 2 = 1 THEN 'event' ELSE 'decision' END,
                           CASE WHEN s %% 2 = 1 THEN 'LocationPing' ELSE 'DecisionRecorded' END,
                           BASE::timestamptz + (l || ' seconds')::interval,
                           BASE::timestamptz + (l || ' seconds')::interval + (s || ' minutes')::interval,
                           'c-' || l,
                           jsonb_build_object('eventId', 'e' || s, 'loadId', 'old-' || l, 'type', 'LocationPing',
                                              'occurredAt', BASE::timestamptz, 'correlationId', 'c-' || l,
                                              'payload', jsonb_build_object('risk', 'high', 'lat', 41.9, 'lon', -87.6))
                    FROM generate_series(%d, %d) l, generate_series(1, 40) s""".formatted(from, Math.min(loads, from + 25_000) - 1)
                    .replace("BASE", base));
        }
        for (int slice = 0; slice < 4; slice++) {
            stack.sql("""
                    INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, attempts, available_at,
                                        first_attempt_at, receipt, dispatched_at, correlation_id, causation_id, created_at)
                    SELECT 'old-' || i || '/ask:eta_request:e1/1/send_sms', 'old-' || i, 'send_sms', 'sms',
                           '{"to": "+15550100", "text": "Hi, what is your ETA?"}', 'dispatched', 1,
                           BASE::timestamptz, BASE::timestamptz, '{"id": "m-1"}', BASE::timestamptz + interval '1 second',
                           'c-' || i, 'e1', BASE::timestamptz
                    FROM generate_series(%1$d, %2$d) i;
                    INSERT INTO timers (timer_id, load_id, ask_id, attempt, fire_at, status, fired_at, cancelled_at, created_at)
                    SELECT 'tmr:old-' || i || ':ask:eta_request:e1:1', 'old-' || i, 'ask:eta_request:e1', 1,
                           BASE::timestamptz + interval '30 minutes', CASE WHEN i %% 3 = 0 THEN 'fired' ELSE 'cancelled' END,
                           CASE WHEN i %% 3 = 0 THEN BASE::timestamptz + interval '30 minutes' END,
                           CASE WHEN i %% 3 <> 0 THEN BASE::timestamptz + interval '10 minutes' END, BASE::timestamptz
                    FROM generate_series(%1$d, %2$d) i""".formatted(slice * 250_000, slice * 250_000 + 249_999).replace("BASE", base));
        }
        stack.sql("ANALYZE");
    }

    private static String sizes(LocalRun stack) throws Exception {
        StringBuilder out = new StringBuilder("   sizes:");
        for (String table : List.of("event_log", "outbox", "timers")) {
            out.append(String.format(" %s %,d rows %,d MB;", table, stack.count("SELECT count(*) FROM " + table),
                    stack.count("SELECT (SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0) FROM pg_inherits"
                            + " WHERE inhparent = '" + table + "'::regclass) + pg_total_relation_size('" + table + "')") / 1_048_576));
        }
        return out.append(String.format("%n")).toString();
    }

    private static String tableStats(LocalRun stack) throws Exception {
        Map<String, String> stats = new HashMap<>();
        for (Map<String, Object> row : stack.rows("""
                SELECT relname, pg_total_relation_size(relid) / 1024 AS kb, n_dead_tup, autovacuum_count
                FROM pg_stat_user_tables WHERE relname IN ('load_queue', 'load_queue_group', 'outbox', 'timers')""")) {
            stats.put((String) row.get("relname"), String.format(" | %-16s %7d %6d %3d", "", (Long) row.get("kb"),
                    (Long) row.get("n_dead_tup"), (Long) row.get("autovacuum_count")));
        }
        StringBuilder out = new StringBuilder();
        HOT_TABLES.forEach(t -> out.append(stats.get(t)));
        return out.toString();
    }
}
