package dev.loadflow.evals;

import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Risk;
import dev.loadflow.store.queue.QueueMessage;
import dev.loadflow.testing.PostgresServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark, not a test (excluded from the suite): the real worker loop, dispatch loop and
 * pump in one JVM, against a real PostgreSQL (fsync on) and the channel simulator, on a real
 * clock. Each inbound event (a high-risk ping or a driver's reply) is logged and decided, its
 * two outbox rows are sent (an SMS and a timer, or a cancel and a Slack post) and their two
 * outcomes are logged: three worker runs and two dispatches per inbound event. Run:
 * <pre>
 * QUARKUS_DATASOURCE_JDBC_URL=jdbc:postgresql://127.0.0.1:5432/postgres \
 *   ./mvnw -B -pl evals test -Dtest=EndToEndBenchmark -Dloadflow.excluded.groups=none
 * </pre>
 */
@Tag("benchmark")
class EndToEndBenchmark {

    private static final Clock CLOCK = BenchRig.CLOCK;

    /** One configuration's figures. */
    record Figures(String run, int loads, int events, double eventsPerSecond, double p50Millis, double p99Millis) {
    }

    /** One configuration: its name, loads in flight, events per load, offered rate (0 flat out), log rows before. */
    record Config(String name, int loads, int eventsPerLoad, int rate, int preloadedLogRows) {
    }

    /**
     * Select some with {@code -Dloadflow.bench.only=<part of the name>}; make each run longer
     * (for a profiler) with {@code -Dloadflow.bench.scale=<factor on the events per load>}.
     */
    static final List<Config> CONFIGS = List.of(
            new Config("flat out", 100, 21, 0, 0),
            new Config("flat out, 10 loads", 10, 101, 0, 0),
            new Config("flat out, 1000 loads", 1000, 3, 0, 0),
            new Config("100 ev/s, 10 loads", 10, 101, 100, 0),
            new Config("100 ev/s, 100 loads", 100, 21, 100, 0),
            new Config("100 ev/s, 1000 loads", 1000, 3, 100, 0),
            new Config("flat out, 10k log rows before", 100, 21, 0, 10_000),
            new Config("flat out, 1M log rows before", 100, 21, 0, 1_000_000),
            // growth at a fixed offered rate, where latency is not a backlog's queueing
            new Config("100 ev/s, 100 loads, 10k rows before", 100, 21, 100, 10_000),
            new Config("100 ev/s, 100 loads, 1M rows before", 100, 21, 100, 1_000_000),
            // the same run as the first, last: how much of the spread is the JIT still warming up
            new Config("flat out, again at the end", 100, 21, 0, 0));

    @Test
    void endToEnd() throws Exception {
        List<Figures> figures = new ArrayList<>();
        String only = System.getProperty("loadflow.bench.only", "");
        int scale = Integer.getInteger("loadflow.bench.scale", 1);
        // the JIT takes a while: warm up until a run is within 5% of the one before (at least 3, at most 10)
        double previous = 0;
        for (int warmUp = 1; warmUp <= 10; warmUp++) {
            double rate = run("warm-up (JIT), not reported", 100, 21, 0, 0).eventsPerSecond();
            if (warmUp >= 3 && Math.abs(rate - previous) <= 0.05 * previous) {
                break;
            }
            previous = rate;
        }
        for (Config config : CONFIGS) {
            if (config.name().contains(only)) {
                figures.add(run(config.name(), config.loads(), config.eventsPerLoad() * scale, config.rate(),
                        config.preloadedLogRows()));
            }
        }

        // after the runs: pgbench's aftermath (its checkpoint, its dropped database) would slow the first one
        double ceiling = CeilingBenchmark.decisionsPerSecond(8);
        StringBuilder table = new StringBuilder(String.format("%n== end to end: %d cores, %s ==%n",
                Runtime.getRuntime().availableProcessors(), PostgresServer.get()));
        table.append(String.format("%-38s %6s %7s %10s %10s %12s %12s%n", "run", "loads", "events", "events/s",
                "of ceiling", "p50 ms", "p99 ms"));
        for (Figures f : figures) {
            table.append(String.format("%-38s %6d %7d %10.1f %9.1f%% %12.1f %12.1f%n", f.run(), f.loads(), f.events(),
                    f.eventsPerSecond(), 100 * f.eventsPerSecond() / ceiling, f.p50Millis(), f.p99Millis()));
        }
        table.append(String.format("(p50/p99: ingest to the SMS request at the simulator; events: inbound events, each logged, decided,%n"
                + " its two outbox rows sent and their two outcomes logged; of ceiling: events/s over the %.0f decision-shaped%n"
                + " transactions/s pgbench ran with 8 clients on the same server right after)%n", ceiling));
        System.out.println(table);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "benchmark-end-to-end.txt"), table);
    }

    private Figures run(String name, int loads, int eventsPerLoad, int rate, int preloadedLogRows) throws Exception {
        try (BenchRig rig = BenchRig.start("bench_e2e")) {
            if (preloadedLogRows > 0) {
                rig.db.execute("""
                        INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, body)
                        SELECT 'old-' || (i / 50), i %% 50 + 1, 'e' || i, 'event', 'LocationPing', now(), now(), '{}'
                        FROM generate_series(0, %d) i""".formatted(preloadedLogRows - 1));
                // settle the bulk load first, as years of history would be: its checkpoint and
                // autovacuum otherwise land in the measured run
                rig.db.execute("VACUUM ANALYZE");
                rig.db.execute("CHECKPOINT");
            }
            rig.startWorker();
            rig.startDispatcher();

            Map<String, Long> ingestedAt = new ConcurrentHashMap<>();
            long start = System.nanoTime();
            if (rate == 0) {
                closedLoop(rig, loads, eventsPerLoad, ingestedAt);
            } else {
                atFixedRate(rig, loads, eventsPerLoad, rate, ingestedAt);
            }
            int inbound = loads * eventsPerLoad;
            long rows = (long) loads * (eventsPerLoad - 1) * 2;
            long expectedLog = 2L * (inbound + rows) + preloadedLogRows;
            // done when nothing is queued and nothing is pending: an ack follows its append, and a
            // row's outcome is queued before the row is marked, so no work can appear after that
            while (rig.count("SELECT (SELECT count(*) FROM load_queue) + (SELECT count(*) FROM outbox WHERE status = 'pending')") > 0) {
                Thread.sleep(20);
                assertThat(System.nanoTime() - start).as("the run finishes within 10 minutes").isLessThan(TimeUnit.MINUTES.toNanos(10));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            assertThat(rig.count("SELECT count(*) FROM event_log")).as("every event, decision and outcome logged once")
                    .isEqualTo(expectedLog);
            assertThat(rig.count("SELECT count(*) FROM outbox WHERE status <> 'dispatched'")).isZero();
            double[] latencies = rig.channels.delivered("sms").stream()
                    .filter(d -> ingestedAt.containsKey(d.idempotencyKey()))
                    .mapToDouble(d -> (d.receivedNanos() - ingestedAt.get(d.idempotencyKey())) / 1e6).sorted().toArray();
            assertThat(latencies).as("one SMS per ping").hasSize(loads * (eventsPerLoad / 2));
            Figures figures = new Figures(name, loads, inbound, inbound / seconds, percentile(latencies, 0.5),
                    percentile(latencies, 0.99));
            System.out.println("   " + figures + "; worker: " + rig.batches());
            return figures;
        }
    }

    /**
     * Flat out: every load keeps one event in flight. Its next event is ingested the moment the
     * previous one's message (the ping's SMS, the reply's Slack post) reaches the simulator, as a
     * driver answers the SMS, by 8 ingest threads (8 concurrent ingest requests). So the system
     * runs as fast as it can, and latency is its own, not the length of a backlog the driver
     * piled up (which grows with the run).
     */
    static void closedLoop(BenchRig rig, int loads, int eventsPerLoad, Map<String, Long> ingestedAt)
            throws InterruptedException {
        ExecutorService ingesters = Executors.newFixedThreadPool(8);
        AtomicIntegerArray next = new AtomicIntegerArray(loads);
        CountDownLatch messages = new CountDownLatch(loads * (eventsPerLoad - 1));
        rig.channels.onDelivery(d -> {
            String load = d.idempotencyKey().substring(0, d.idempotencyKey().indexOf('/'));
            int i = next.getAndIncrement(Integer.parseInt(load.substring(1)));
            if (i < eventsPerLoad) {
                ingesters.execute(() -> ingest(rig, event(load, i), ingestedAt));
            }
            messages.countDown();
        });
        for (int l = 0; l < loads; l++) {
            String load = "L" + l;
            next.set(l, 2);
            ingesters.execute(() -> {
                ingest(rig, event(load, 0), ingestedAt); // assigned: no message to wait for
                ingest(rig, event(load, 1), ingestedAt);
            });
        }
        assertThat(messages.await(10, TimeUnit.MINUTES)).as("every event's message reached the simulator").isTrue();
        ingesters.shutdown();
    }

    /** At {@code rate} events per second, load after load: assigned, then pings and replies. */
    private static void atFixedRate(BenchRig rig, int loads, int eventsPerLoad, int rate, Map<String, Long> ingestedAt)
            throws InterruptedException {
        long start = System.nanoTime();
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        int n = 0;
        for (int i = 0; i < eventsPerLoad; i++) {
            for (int l = 0; l < loads; l++) {
                long due = start + n++ * interval;
                while (System.nanoTime() < due) {
                    Thread.sleep(Math.max(0, (due - System.nanoTime()) / 1_000_000));
                }
                ingest(rig, event("L" + l, i), ingestedAt);
            }
        }
    }

    static void ingest(BenchRig rig, InboundEvent e, Map<String, Long> ingestedAt) {
        ingestedAt.put(e.loadId() + "/ask:eta_request:" + e.eventId() + "/1/send_sms", System.nanoTime());
        rig.queue.enqueue(QueueMessage.of(e));
    }

    /** Event {@code i} of a load's story: 0 assigned, odd a high-risk ping, even a reply. */
    static InboundEvent event(String load, int i) {
        Instant now = CLOCK.instant();
        EventPayload payload = i == 0 ? new EventPayload.LoadAssigned("client-a", "+15550100", "dispatched")
                : i % 2 == 1 ? new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6)
                : new EventPayload.InboundSms("+15550100", "ETA soon");
        return new InboundEvent("e" + i, load, now, now, "c-" + load, null, payload);
    }

    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }
}
