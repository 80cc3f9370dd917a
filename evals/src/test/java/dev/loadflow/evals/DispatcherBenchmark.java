package dev.loadflow.evals;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.id.AskId;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.OutboxMessage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark, not a test: the dispatcher alone. Pending SMS rows sent per second with one and two
 * dispatchers, against a channel answering at once and one answering after 50 ms: 50,000 rows a
 * run, as the peers' harnesses time, after the whole procedure once with 20,000 rows per run
 * (one dispatcher, then two) to warm the JIT up, not reported ({@code bench-peers/run} gives the
 * peers a warm-up run of 40,000). Each run prints the CPU
 * this JVM (dispatchers and channel simulator) and PostgreSQL spent per row. Run:
 * <pre>
 * QUARKUS_DATASOURCE_JDBC_URL=jdbc:postgresql://127.0.0.1:5432/postgres \
 *   ./mvnw -B -pl evals test -Dtest=DispatcherBenchmark -Dloadflow.excluded.groups=none \
 *   [-Dloadflow.bench.dispatcher-delays=0] [-Dloadflow.bench.dispatcher-warm-up=40000] \
 *   [-Dloadflow.bench.dispatcher-concurrency=128] [-Dloadflow.bench.transport=jdk]
 * </pre>
 */
@Tag("benchmark")
class DispatcherBenchmark {

    private static final int ROWS = Integer.getInteger("loadflow.bench.dispatcher-rows", 50_000);
    /** Channel delays (ms) to run, e.g. {@code -Dloadflow.bench.dispatcher-delays=0} for the 0 ms runs only. */
    private static final String DELAYS = System.getProperty("loadflow.bench.dispatcher-delays", "0,50");
    /** Rows of the JIT's warm-up run, not reported. */
    private static final int WARM_UP = Integer.getInteger("loadflow.bench.dispatcher-warm-up", 40_000);

    /** One run: rows sent per second, and CPU milliseconds per row of this JVM (dispatchers and simulator) and of PostgreSQL. */
    private record Measured(double rowsPerSecond, double jvmMillisPerRow, double pgMillisPerRow) {
    }

    @Test
    void rowsSentPerSecond() throws Exception {
        // the JIT's warm-up, not reported: the whole procedure once (one dispatcher, then two), as the peers' harnesses
        // do theirs; after 40,000 rows through one dispatcher alone its next run was still 30% slower than later ones
        run(1, 0, WARM_UP / 2);
        run(2, 0, WARM_UP / 2);
        Map<String, Measured> runs = new LinkedHashMap<>();
        for (int delay : Arrays.stream(DELAYS.split(",")).mapToInt(d -> Integer.parseInt(d.trim())).toArray()) {
            for (int dispatchers : new int[]{1, 2}) {
                runs.put(String.format("%-12d %-12s", dispatchers, delay + " ms"), run(dispatchers, delay, ROWS));
            }
        }
        double ceiling = CeilingBenchmark.decisionsPerSecond(8);
        StringBuilder table = new StringBuilder(String.format("%n== dispatcher alone: %,d SMS rows, %d cores ==%n%-12s %-12s %10s %10s %12s %12s%n",
                ROWS, Runtime.getRuntime().availableProcessors(), "dispatchers", "channel", "rows/s", "of ceiling",
                "JVM CPU ms", "PG CPU ms"));
        runs.forEach((run, m) -> table.append(String.format("%s %10.1f %9.1f%% %12.3f %12.3f%n", run, m.rowsPerSecond(),
                100 * m.rowsPerSecond() / ceiling, m.jvmMillisPerRow(), m.pgMillisPerRow())));
        table.append(String.format("(of ceiling: rows/s over the %.0f decision-shaped transactions/s of pgbench, 8 clients, right after;%n"
                + " CPU ms: per row, of this JVM (dispatchers and channel simulator) and of PostgreSQL)%n", ceiling));
        System.out.println(table);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "benchmark-dispatcher.txt"), table);
    }

    private Measured run(int dispatchers, int delayMillis, int rows) throws Exception {
        try (BenchRig rig = BenchRig.start("bench_dispatch")) {
            if (delayMillis > 0) {
                rig.channels.slow("sms", Duration.ofMillis(delayMillis));
            }
            Instant now = BenchRig.CLOCK.instant();
            List<EventStore.Append> appends = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                String load = "D" + i;
                InboundEvent ping = new InboundEvent("p", load, now, now, "c", null, new EventPayload.LocationPing(Risk.HIGH, 1, 1));
                Action sms = new Action.SendSms(AskId.of("eta_request", "p"), 1, "+15550100", "ETA?");
                appends.add(new EventStore.Append(load, List.of(ping, DecisionRecorded.decided(ping, now, List.of(sms), false,
                        "bench", List.of())), 0, List.of(OutboxMessage.of(load, sms, now, "c", "p"))));
                if (appends.size() == 500 || i == rows - 1) {
                    rig.events.appendAll(appends);
                    appends.clear();
                }
            }
            long jvmCpu = CpuTime.millisOfSelf();
            long pgCpu = CpuTime.millisOfAll("postgres");
            long start = System.nanoTime();
            for (int d = 0; d < dispatchers; d++) {
                rig.startDispatcher();
            }
            // looked at every 100 ms: counting up to 20,000 rows more often would take a share of the machine
            while (rig.count("SELECT count(*) FROM outbox WHERE status = 'dispatched'") < rows) {
                Thread.sleep(100);
                assertThat(System.nanoTime() - start).isLessThan(TimeUnit.MINUTES.toNanos(5));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            Measured measured = new Measured(rows / seconds, (double) (CpuTime.millisOfSelf() - jvmCpu) / rows,
                    (double) (CpuTime.millisOfAll("postgres") - pgCpu) / rows);
            assertThat(rig.channels.delivered("sms")).hasSize(rows);
            return measured;
        }
    }
}
