package dev.loadflow.evals;

import dev.loadflow.evals.local.LocalRun;
import dev.loadflow.evals.sim.ChannelSimulator;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Benchmark, not a test (excluded from the suite): loadflow as it is deployed. The three packaged
 * services run as three JVMs (the local run's launcher, heaps as in a 512Mi container) against a
 * real PostgreSQL (fsync on), and a load generator in this JVM drives them only through the HTTP
 * ingest API (HTTP/1.1, Vert.x's client on one event loop), 8 requests at a time, with a source's
 * token. Each load is assigned, then gets a high-risk ping (an SMS and a timer), then the
 * driver's reply (the timer cancelled, a Slack post), and so on. Flat out, a load's next event is sent the moment its previous one's message
 * reaches the channel simulator. Every run ends with the ledger: each event and decision logged
 * once with its two outcomes, every row sent, no message twice at the simulator. Printed per
 * run: inbound events/s, ingest→SMS latency, and the CPU milliseconds each process spent per
 * inbound event (services, PostgreSQL, and this JVM: the load generator and the simulator),
 * PostgreSQL's part split by the service whose connections it served, the WAL the server wrote
 * per inbound event, and the rate as a share of the pgbench ceiling measured
 * right after. Autovacuum is on, as in production ({@link Autovacuum}). As the manifests ship the
 * services, tracing is on: they export their spans to a collector that answers ({@link OtlpSink}).
 * Each shape runs with the channel simulator answering at once and after 100 and 300 ms, as
 * providers' APIs do ({@code -Dloadflow.bench.channel-delays=0,100,300}).
 * Run (a server with fsync on, never the embedded one):
 * <pre>
 * QUARKUS_DATASOURCE_JDBC_URL=jdbc:postgresql://127.0.0.1:5432/postgres ./mvnw -B package -DskipTests
 * QUARKUS_DATASOURCE_JDBC_URL=... ./mvnw -B -pl evals test -Dtest=DeploymentBenchmark -Dloadflow.excluded.groups=none
 * </pre>
 */
@Tag("benchmark")
class DeploymentBenchmark {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String DRIVER = "+15550100";
    private static final int SENDERS = Integer.getInteger("loadflow.bench.senders", 8);
    /**
     * Clients with an SOP version of their own ({@code -Dloadflow.bench.sop-clients=N}), the loads
     * assigned among them by their id: the workers decide from the stored SOPs. 0 (the default):
     * every load is client A's, decided by the configured rules.
     */
    private static final int SOP_CLIENTS = Integer.getInteger("loadflow.bench.sop-clients", 0);
    /** Runs of each flat-out shape; the one with the median rate is reported, with the lowest and highest rates. */
    static final int REPEATS = 3;

    /**
     * One run: its name, loads, events per load (the assignment, then pings and replies), offered rate
     * (0 flat out; -1 each load's events back to back, each posted when the one before was answered;
     * -2 a backlog replayed: low-risk pings, {@value #SENDERS} posted at a time, which queue faster than
     * one load's runs take them), and how long the channel simulator takes to answer (SMS, Hero
     * tasks, Slack alike).
     */
    record Config(String name, int loads, int eventsPerLoad, int rate, int channelMillis) {

        Config(String name, int loads, int eventsPerLoad, int rate) {
            this(name, loads, eventsPerLoad, rate, 0);
        }
    }

    /**
     * @param wal             the server's WAL per inbound event over the run (all its databases: only the run writes meanwhile)
     * @param postgresPerEvent PostgreSQL's CPU per inbound event by the service whose connections it served, and the
     *                         {@link #REST} (see {@link PostgresCpu})
     */
    record Figures(Config config, int events, double eventsPerSecond, double p50Millis, double p99Millis,
                   Map<String, Double> cpuPerEvent, Wal wal, Map<String, Double> postgresPerEvent) {
    }

    /** PostgreSQL's CPU that no service's connection took: autovacuum, the WAL writer, checkpointer and background writer, exited backends. */
    static final String REST = "rest";

    /**
     * PostgreSQL's CPU so far on each service's connections: the server's backends alive now, by
     * the service their {@code application_name} names (its pool's, and its LISTEN connection's
     * "{@code <service> listen}"). Over a run, a backend's CPU since the run began; one that
     * exits meanwhile, and every other process of the server, are left to {@link #REST}.
     */
    record PostgresCpu(Map<Long, String> serviceOf, Map<Long, Long> millis) {

        static PostgresCpu now(LocalRun stack) throws SQLException {
            Map<Long, String> serviceOf = new LinkedHashMap<>();
            Map<Long, Long> millis = new LinkedHashMap<>();
            for (Map<String, Object> row : stack.rows("SELECT pid, application_name FROM pg_stat_activity WHERE backend_type = 'client backend'")) {
                String name = String.valueOf(row.get("application_name")).replaceFirst(" listen$", "");
                if (stack.pids().containsKey(name)) {
                    long pid = ((Number) row.get("pid")).longValue();
                    serviceOf.put(pid, name);
                    millis.put(pid, CpuTime.millis(pid));
                }
            }
            return new PostgresCpu(serviceOf, millis);
        }

        /** Per inbound event since {@code before}, by service, and the rest of {@code totalMillis} (all of PostgreSQL's). */
        Map<String, Double> since(PostgresCpu before, long totalMillis, int events) {
            Map<String, Double> perEvent = new LinkedHashMap<>();
            long services = 0;
            for (Map.Entry<Long, String> backend : serviceOf.entrySet()) {
                long spent = millis.get(backend.getKey()) - before.millis().getOrDefault(backend.getKey(), 0L);
                services += spent;
                perEvent.merge(backend.getValue(), spent / (double) events, Double::sum);
            }
            perEvent.put(REST, (totalMillis - services) / (double) events);
            return perEvent;
        }
    }

    /** WAL written per inbound event: kilobytes, records, and full-page images (a page's first change after a checkpoint starts). */
    record Wal(double kilobytes, double records, double fullPages) {

        /** The server's WAL counters so far ({@code pg_stat_wal}): records, full-page images, bytes. */
        static long[] counters(LocalRun stack) throws SQLException {
            return new long[]{stack.count("SELECT wal_records FROM pg_stat_wal"), stack.count("SELECT wal_fpi FROM pg_stat_wal"),
                    stack.count("SELECT wal_bytes::bigint FROM pg_stat_wal")};
        }

        static Wal between(long[] before, long[] after, int events) {
            return new Wal((after[2] - before[2]) / 1024.0 / events, (double) (after[0] - before[0]) / events,
                    (double) (after[1] - before[1]) / events);
        }
    }

    /** A shape's reported run (its median by rate) and the range of its runs' rates. */
    record Reported(Figures median, double lowest, double highest) {

        static Reported of(List<Figures> runs) {
            List<Figures> byRate = runs.stream().sorted(Comparator.comparingDouble(Figures::eventsPerSecond)).toList();
            return new Reported(byRate.get(byRate.size() / 2), byRate.getFirst().eventsPerSecond(), byRate.getLast().eventsPerSecond());
        }
    }

    /**
     * Flat out, about ten seconds each here: runs of a few seconds swung by ±15% with an autovacuum
     * pass or a checkpoint, and runs of ten still spread by as much from one to the next, so each
     * flat-out shape is run {@value #REPEATS} times, in rounds that take every shape once, and reported by
     * its median.
     */
    static final List<Config> CONFIGS = configs(System.getProperty("loadflow.bench.channel-delays", "0,100,300"));

    /**
     * The shapes, each with a channel answering at once and after each of {@code delays} (ms): a provider's API
     * takes 100 to 300 ms. The 100-load flat-out shape runs with the instant channel only.
     */
    static List<Config> configs(String delays) {
        List<Config> configs = new ArrayList<>();
        for (String delay : delays.split(",")) {
            int ms = Integer.parseInt(delay.trim());
            String channel = ", channel " + ms + " ms";
            if (ms == 0) {
                configs.add(new Config("flat out, 100 loads" + channel, 100, 81, 0, ms));
                configs.add(new Config("one load, 500 events back to back" + channel, 1, 500, -1, ms));
                configs.add(new Config("one load, 500 pings queued at once" + channel, 1, 500, -2, ms));
            }
            configs.add(new Config("flat out, 1000 loads" + channel, 1000, 9, 0, ms));
            configs.add(new Config("100 ev/s, 100 loads" + channel, 100, 21, 100, ms));
        }
        return configs;
    }

    @Test
    void deploymentShape() throws Exception {
        assumeTrue(System.getenv("QUARKUS_DATASOURCE_JDBC_URL") != null,
                "a benchmark runs against a real PostgreSQL server with fsync on: set QUARKUS_DATASOURCE_JDBC_URL");
        // tracing on, as the manifests ship the services, exporting to a collector that answers
        OtlpSink collector = new OtlpSink();
        System.setProperty("loadflow.local.otlp-endpoint", collector.endpoint());
        // the load queue on SQS FIFO instead of PostgreSQL (-Dloadflow.bench.queue=sqs): ElasticMQ in this JVM,
        // each call held -Dloadflow.bench.sqs-latency-ms on its way, as a round trip to AWS's endpoint takes
        SqsStandIn sqs = "sqs".equals(System.getProperty("loadflow.bench.queue"))
                ? new SqsStandIn(Duration.ofMillis(Long.getLong("loadflow.bench.sqs-latency-ms", 0))) : null;
        if (sqs != null) {
            String jvmArgs = System.getProperty("loadflow.local-run.jvm-args", "");
            System.setProperty("loadflow.local-run.jvm-args", jvmArgs + " " + String.join(" ", sqs.jvmArgs()));
        }
        LocalRun stack = new LocalRun(new LocalRun.Options(ROOT, 300, Duration.ofMinutes(30), List.of(), false, false));
        Autovacuum autovacuum = null;
        try (Driver driver = new Driver(stack, sqs); collector) {
            stack.start();
            storeSops(stack, SOP_CLIENTS);
            autovacuum = Autovacuum.on(stack);
            String only = System.getProperty("loadflow.bench.only", "");
            driver.warmUp();
            Map<String, Double> idle = driver.idle(Duration.ofSeconds(10));
            // round by round, each shape once a round: the tables grow and bloat over the whole benchmark, so
            // shapes run one after another would each meet a later state than the ones before (run after the
            // 300 ms shape rather than before it, the instant channel's rate was 7% lower and the 300 ms one's
            // 3.5% higher)
            Map<Config, List<Figures>> runs = new LinkedHashMap<>();
            CONFIGS.stream().filter(config -> config.name().contains(only)).forEach(config -> runs.put(config, new ArrayList<>()));
            int n = 0;
            for (int r = 0; r < REPEATS; r++) {
                for (var shape : runs.entrySet()) {
                    if (r == 0 || shape.getKey().rate() == 0) {
                        shape.getValue().add(driver.run("r" + n++, shape.getKey()));
                    }
                }
            }
            List<Reported> figures = runs.values().stream().map(Reported::of).toList();
            // the machine's own speed varies from day to day: the figures as a share of what PostgreSQL does here
            // on a Citus cluster the ceiling (one PostgreSQL's) is not the yardstick: its share is left out (NaN)
            double ceiling = stack.citus() ? Double.NaN : CeilingBenchmark.decisionsPerSecond(8);
            String table = table(figures, idle, ceiling) + String.format("(tracing on: the services' spans went to a collector"
                    + " stub in %,d OTLP export calls)%n", collector.exports());
            System.out.println(table);
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "benchmark-deployment.txt"), table);
        } finally {
            if (autovacuum != null) {
                autovacuum.close();
            }
            stack.stop();
            if (sqs != null) {
                sqs.close();
            }
        }
    }

    /** A version of its own for each of {@code clients} clients, written as an operator's PUT writes it. */
    private static void storeSops(LocalRun stack, int clients) throws java.sql.SQLException {
        if (clients > 0) {
            stack.sql("""
                    INSERT INTO sop_version (client_id, version, rules, made_by, made_at, reason)
                    SELECT 'client-' || lpad(n::text, 4, '0'), 1,
                           '{"retryAfter": "PT30M", "maxAttempts": 3, "etaRequestText": "Load {loadId}: your ETA? ({attempt})",
                             "heroSlackChannel": "#hero-desk", "stageWebhooks": []}', 'benchmark', '2026-11-30T06:00:00Z', 'the benchmark''s clients'
                    FROM generate_series(0, %d) n""".formatted(clients - 1));
        }
    }

    /** The client a load is assigned to: one of {@link #SOP_CLIENTS}'s by its id, or client A. */
    private static String clientOf(String load) {
        return SOP_CLIENTS == 0 ? "client-a" : String.format("client-%04d", Math.floorMod(load.hashCode(), SOP_CLIENTS));
    }

    private static String table(List<Reported> figures, Map<String, Double> idle, double ceiling) {
        List<String> processes = new ArrayList<>(figures.getFirst().median().cpuPerEvent().keySet());
        StringBuilder out = new StringBuilder(String.format("%n== deployment shape: %d cores, three services as three JVMs, "
                + "ingest over HTTP (%d at a time) ==%n", Runtime.getRuntime().availableProcessors(), SENDERS));
        out.append(String.format("%-42s %6s %7s %9s %13s %7s %9s %9s |", "run", "loads", "events", "events/s", "runs' range",
                "of ceil", "p50 ms", "p99 ms"));
        processes.forEach(p -> out.append(String.format(" %9s", abbreviation(p))));
        out.append(String.format(" | %7s %7s %6s%n", "WAL kB", "records", "pages"));
        for (Reported reported : figures) {
            Figures f = reported.median();
            String range = reported.lowest() == reported.highest() ? "" : String.format("%.0f-%.0f", reported.lowest(), reported.highest());
            String ofCeiling = Double.isNaN(ceiling) ? "-" : String.format("%.1f%%", 100 * f.eventsPerSecond() / ceiling);
            out.append(String.format("%-42s %6d %7d %9.1f %13s %7s %9.1f %9.1f |", f.config().name(), f.config().loads(), f.events(),
                    f.eventsPerSecond(), range, ofCeiling, f.p50Millis(), f.p99Millis()));
            processes.forEach(p -> out.append(String.format(" %9.3f", f.cpuPerEvent().get(p))));
            out.append(String.format(" | %7.1f %7.1f %6.2f%n", f.wal().kilobytes(), f.wal().records(), f.wal().fullPages()));
        }
        out.append(String.format("%-42s %6s %7s %9s %13s %7s %9s %9s |", "idle, CPU ms per second", "", "", "", "", "", "", ""));
        processes.forEach(p -> out.append(String.format(" %9.1f", idle.get(p))));
        out.append(String.format("%n"));
        out.append(String.format("(flat out: the median of %d runs by events/s, its range beside it, the rest of the line that run's.%n", REPEATS)
                + String.format(" p50/p99: the POST of a ping to its SMS at the simulator. Right of |: CPU milliseconds per inbound%n"
                + " event: worker = load-worker, disp = outbox-dispatcher, pump = timer-pump, pg = PostgreSQL's processes,%n"
                + " client = this JVM: the HTTP load generator and the channel simulator. 1,000 ms/s is one core.%n"
                + " WAL: the server's, per inbound event (pg_stat_wal); pages: full-page images, a page's first change after a checkpoint starts.%n"
                + (Double.isNaN(ceiling) ? " of ceil: none on a Citus cluster (pg: the processes of every node on this machine).)%n"
                : " of ceil: events/s over the %.0f decision-shaped transactions/s of pgbench, 8 clients, right after.)%n"), ceiling));
        // the services in the order of the table above, then the rest
        List<String> served = new ArrayList<>(processes.stream()
                .filter(figures.getFirst().median().postgresPerEvent()::containsKey).toList());
        served.add(REST);
        out.append(String.format("%nPostgreSQL's CPU ms per inbound event, by whose connections it served:%n%-42s", "run"));
        served.forEach(p -> out.append(String.format(" %9s", abbreviation(p))));
        out.append(String.format("%n"));
        for (Reported reported : figures) {
            Figures f = reported.median();
            out.append(String.format("%-42s", f.config().name()));
            served.forEach(p -> out.append(String.format(" %9.3f", f.postgresPerEvent().getOrDefault(p, 0.0))));
            out.append(String.format("%n"));
        }
        out.append(String.format("(each service's pool and LISTEN connection, by their application_name; rest: autovacuum, the WAL%n"
                + " writer, checkpointer and background writer, and backends that exited during the run.)%n"));
        return out.toString();
    }

    private static String abbreviation(String process) {
        return switch (process) {
            case "load-worker" -> "worker";
            case "outbox-dispatcher" -> "disp";
            case "timer-pump" -> "pump";
            case "postgres" -> "pg";
            default -> process;
        };
    }

    /**
     * The load generator: HTTP/1.1, as a source's request reaches a pod behind an ingress or load
     * balancer, on Vert.x's client and one event loop, so that it takes little of the two cores it
     * shares with what it measures (the JDK's client on 8 threads spent about 0.2 ms of CPU per
     * request).
     */
    static final class Driver implements AutoCloseable {

        private final LocalRun stack;
        private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
        private final HttpClient http = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                new PoolOptions().setHttp1MaxSize(SENDERS));
        /** The first ingest that failed or was not answered 202 (a run stops on it). */
        private final AtomicReference<String> failure = new AtomicReference<>();
        /** Ingests sent and not answered yet. */
        private final AtomicInteger unanswered = new AtomicInteger();

        /** The load queue when it is on SQS; null on PostgreSQL. */
        private final SqsStandIn sqs;

        /** A generator for {@code stack}, which it drives once started, its load queue on PostgreSQL. */
        Driver(LocalRun stack) {
            this(stack, null);
        }

        /** A generator for {@code stack}, which it drives once started; {@code sqs} the load queue, or null. */
        Driver(LocalRun stack, SqsStandIn sqs) {
            this.stack = stack;
            this.sqs = sqs;
        }

        @Override
        public void close() {
            vertx.close().toCompletionStage().toCompletableFuture().join();
        }

        /**
         * The three JVMs' JIT takes minutes: flat-out runs, not reported, until one is within 5% of
         * the one before (at least 3, at most 10). With two fixed ones, the first reported run was
         * half as fast as the same run later.
         */
        void warmUp() throws Exception {
            double previous = 0;
            for (int n = 1; n <= 10; n++) {
                double rate = run("warm" + n, new Config("warm-up (JIT), not reported", 100, 41, 0)).eventsPerSecond();
                if (n >= 3 && Math.abs(rate - previous) <= 0.05 * previous) {
                    return;
                }
                previous = rate;
            }
        }

        Figures run(String prefix, Config config) throws Exception {
            for (String channel : List.of("sms", "hero", "slack")) {
                if (config.channelMillis() == 0) {
                    stack.simulator().heal(channel);
                } else {
                    stack.simulator().slow(channel, Duration.ofMillis(config.channelMillis()));
                }
            }
            Map<String, Long> cpuBefore = cpu();
            PostgresCpu postgresBefore = PostgresCpu.now(stack);
            long[] walBefore = Wal.counters(stack);
            Map<String, Long> sentAt = new ConcurrentHashMap<>();
            int smsBefore = stack.simulator().delivered("sms").size();
            int slackBefore = stack.simulator().delivered("slack").size();
            long start = System.nanoTime();
            if (config.rate() == 0) {
                closedLoop(prefix, config, sentAt);
            } else if (config.rate() == -1) {
                backToBack(prefix, config, sentAt);
            } else if (config.rate() == -2) {
                backlog(prefix, config);
            } else {
                atFixedRate(prefix, config, sentAt);
            }
            int inbound = config.loads() * config.eventsPerLoad();
            int pings = config.loads() * (config.eventsPerLoad() / 2);
            int replies = config.loads() * ((config.eventsPerLoad() - 1) / 2);
            String loads = "load_id LIKE '" + prefix + "-%'";
            while (unanswered.get() > 0 || queued(loads) > 0 || stack.count("SELECT count(*) FROM outbox "
                    + "WHERE status = 'pending' AND " + loads) > 0) {
                Thread.sleep(20);
                assertThat(failure.get()).as("a failed ingest").isNull();
                assertThat(System.nanoTime() - start).as("the run ends within 10 minutes").isLessThan(TimeUnit.MINUTES.toNanos(10));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            Map<String, Long> cpuAfter = cpu();
            Map<String, Double> postgres = PostgresCpu.now(stack).since(postgresBefore,
                    cpuAfter.get("postgres") - cpuBefore.get("postgres"), inbound);
            Wal wal = Wal.between(walBefore, Wal.counters(stack), config.loads() * config.eventsPerLoad());

            if (config.rate() == -2) {
                return backlogFigures(config, loads, seconds, cpuBefore, cpuAfter, postgres, wal);
            }
            // the ledger
            assertThat(stack.count("SELECT count(*) FROM event_log WHERE " + loads))
                    .as("each event and its decision, each action's outcome and its decision, once")
                    .isEqualTo(2L * config.loads() + 6L * (pings + replies));
            assertThat(stack.count("SELECT count(*) FROM outbox WHERE status <> 'dispatched' AND " + loads)).isZero();
            List<ChannelSimulator.Delivery> sms = stack.simulator().delivered("sms").subList(smsBefore, smsBefore + pings);
            assertThat(stack.simulator().delivered("sms")).hasSize(smsBefore + pings);
            assertThat(stack.simulator().delivered("slack")).hasSize(slackBefore + replies);
            assertThat(sms.stream().map(ChannelSimulator.Delivery::idempotencyKey).distinct()).as("no SMS twice").hasSize(pings);

            double[] latencies = sms.stream().filter(d -> sentAt.containsKey(d.idempotencyKey()))
                    .mapToDouble(d -> (d.receivedNanos() - sentAt.get(d.idempotencyKey())) / 1e6).sorted().toArray();
            Map<String, Double> perEvent = new LinkedHashMap<>();
            cpuBefore.forEach((process, before) -> perEvent.put(process, (cpuAfter.get(process) - before) / (double) inbound));
            Figures figures = new Figures(config, inbound, inbound / seconds, EndToEndBenchmark.percentile(latencies, 0.5),
                    EndToEndBenchmark.percentile(latencies, 0.99), perEvent, wal, postgres);
            System.out.println("   " + figures);
            return figures;
        }

        /** Messages of the run's loads in the load queue (on SQS: every message, waiting or in flight). */
        private long queued(String loads) throws SQLException {
            return sqs != null ? sqs.queued() : stack.count("SELECT count(*) FROM load_queue WHERE " + loads);
        }

        /** CPU milliseconds per second each process spends with nothing to do, over {@code period}. */
        Map<String, Double> idle(Duration period) throws InterruptedException {
            Map<String, Long> before = cpu();
            Thread.sleep(period);
            Map<String, Long> after = cpu();
            Map<String, Double> perSecond = new LinkedHashMap<>();
            before.forEach((process, ms) -> perSecond.put(process, (after.get(process) - ms) * 1000.0 / period.toMillis()));
            return perSecond;
        }

        private Map<String, Long> cpu() {
            Map<String, Long> cpu = new LinkedHashMap<>();
            stack.pids().forEach((service, pid) -> cpu.put(service, CpuTime.millis(pid)));
            cpu.put("postgres", CpuTime.millisOfAll("postgres"));
            cpu.put("client", CpuTime.millisOfSelf());
            return cpu;
        }

        /** Every load keeps one event in flight: its next one goes the moment its last one's message arrives. */
        private void closedLoop(String prefix, Config config, Map<String, Long> sentAt) throws InterruptedException {
            AtomicIntegerArray next = new AtomicIntegerArray(config.loads());
            CountDownLatch messages = new CountDownLatch(config.loads() * (config.eventsPerLoad() - 1));
            stack.simulator().onDelivery(d -> {
                String load = d.idempotencyKey().substring(0, d.idempotencyKey().indexOf('/'));
                if (!load.startsWith(prefix + "-") || !(d.channel().equals("sms") || d.channel().equals("slack"))) {
                    return;
                }
                int l = Integer.parseInt(load.substring(prefix.length() + 2));
                int i = next.getAndIncrement(l);
                if (i < config.eventsPerLoad()) {
                    send(load, sentAt, i);
                }
                messages.countDown();
            });
            for (int l = 0; l < config.loads(); l++) {
                String load = prefix + "-L" + l;
                next.set(l, 2);
                send(load, sentAt, 0, 1); // the assignment has no message to wait for: the first ping follows it
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (!messages.await(1, TimeUnit.SECONDS)) {
                assertThat(failure.get()).as("a failed ingest").isNull();
                assertThat(System.nanoTime()).as("every event's message reached the simulator within 10 minutes").isLessThan(deadline);
            }
            stack.simulator().onDelivery(d -> { });
        }

        /**
         * A backlog replayed: each load's low-risk pings (a noop each), {@value #SENDERS} posts in
         * flight at a time, so they queue faster than the load's runs take them.
         */
        private void backlog(String prefix, Config config) throws InterruptedException {
            java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(SENDERS);
            for (int l = 0; l < config.loads(); l++) {
                String load = prefix + "-L" + l;
                for (int i = 0; i < config.eventsPerLoad(); i++) {
                    inFlight.acquire();
                    String json = """
                            {"eventId": "b%d", "type": "LocationPing", "occurredAt": "2026-11-30T07:00:00Z",
                             "payload": {"risk": "low", "lat": 41.9, "lon": -87.6}}""".formatted(i);
                    unanswered.incrementAndGet();
                    stack.post(http, load, json, () -> { }).onComplete(answer -> {
                        unanswered.decrementAndGet();
                        inFlight.release();
                        if (answer.failed() || answer.result() != 202) {
                            failure.compareAndSet(null, (answer.failed() ? answer.cause().toString()
                                    : "ingest answered " + answer.result()) + " to " + json);
                        }
                    });
                }
            }
        }

        /** A backlog's ledger (each ping and its decision logged once, nothing left queued) and its figures; no SMS to time. */
        private Figures backlogFigures(Config config, String loads, double seconds, Map<String, Long> cpuBefore,
                                       Map<String, Long> cpuAfter, Map<String, Double> postgres, Wal wal) throws SQLException {
            int inbound = config.loads() * config.eventsPerLoad();
            assertThat(stack.count("SELECT count(*) FROM event_log WHERE " + loads)).as("each ping and its decision, once")
                    .isEqualTo(2L * inbound);
            assertThat(stack.count("SELECT count(DISTINCT entry_id) FROM event_log WHERE " + loads)).isEqualTo(2L * inbound);
            Map<String, Double> perEvent = new LinkedHashMap<>();
            cpuBefore.forEach((process, before) -> perEvent.put(process, (cpuAfter.get(process) - before) / (double) inbound));
            Figures figures = new Figures(config, inbound, inbound / seconds, Double.NaN, Double.NaN, perEvent, wal, postgres);
            System.out.println("   " + figures);
            return figures;
        }

        /** Each load's events posted one after the other, each as soon as the one before it was answered. */
        private void backToBack(String prefix, Config config, Map<String, Long> sentAt) {
            int[] all = java.util.stream.IntStream.range(0, config.eventsPerLoad()).toArray();
            for (int l = 0; l < config.loads(); l++) {
                send(prefix + "-L" + l, sentAt, all);
            }
        }

        /** At the offered rate, load after load: assigned, then pings and replies. */
        private void atFixedRate(String prefix, Config config, Map<String, Long> sentAt) throws InterruptedException {
            long start = System.nanoTime();
            long interval = TimeUnit.SECONDS.toNanos(1) / config.rate();
            int n = 0;
            for (int i = 0; i < config.eventsPerLoad(); i++) {
                for (int l = 0; l < config.loads(); l++) {
                    long due = start + n++ * interval;
                    while (System.nanoTime() < due) {
                        Thread.sleep(Math.max(0, (due - System.nanoTime()) / 1_000_000));
                    }
                    send(prefix + "-L" + l, sentAt, i);
                }
            }
        }

        /** Sends events {@code indexes} of {@code load}, each when the one before it was answered. */
        private void send(String load, Map<String, Long> sentAt, int... indexes) {
            send(load, sentAt, indexes, 0);
        }

        private void send(String load, Map<String, Long> sentAt, int[] indexes, int k) {
            int i = indexes[k];
            String json = event(load, i);
            unanswered.incrementAndGet();
            stack.post(http, load, json, () -> {
                if (i % 2 == 1) {
                    sentAt.put(load + "/ask:eta_request:p" + i + "/1/send_sms", System.nanoTime());
                }
            }).onComplete(answer -> {
                unanswered.decrementAndGet();
                if (answer.failed() || answer.result() != 202) {
                    failure.compareAndSet(null, (answer.failed() ? answer.cause().toString() : "ingest answered " + answer.result())
                            + " to " + json);
                } else if (k + 1 < indexes.length) {
                    send(load, sentAt, indexes, k + 1);
                }
            });
        }

        /** Event {@code i} of a load: 0 assigned, odd a high-risk ping, even the driver's reply. */
        private static String event(String load, int i) {
            if (i == 0) {
                return """
                        {"eventId": "a0", "type": "LoadAssigned", "occurredAt": "2026-11-30T06:55:00Z",
                         "payload": {"clientId": "%s", "driverPhone": "%s", "stage": "dispatched"}}""".formatted(clientOf(load), DRIVER);
            }
            if (i % 2 == 1) {
                return """
                        {"eventId": "p%d", "type": "LocationPing", "occurredAt": "2026-11-30T07:00:00Z",
                         "payload": {"risk": "high", "lat": 41.9, "lon": -87.6}}""".formatted(i);
            }
            return """
                    {"eventId": "r%d", "type": "InboundSms", "occurredAt": "2026-11-30T07:10:00Z",
                     "payload": {"from": "%s", "text": "ETA soon"}}""".formatted(i, DRIVER);
        }
    }
}
