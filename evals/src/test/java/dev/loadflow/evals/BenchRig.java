package dev.loadflow.evals;

import dev.loadflow.service.store.StoreProducers;
import dev.loadflow.dispatcher.DispatcherMetrics;
import dev.loadflow.dispatcher.claim.DispatchLoop;
import dev.loadflow.dispatcher.claim.RowDispatcher;
import dev.loadflow.dispatcher.deliver.Delivery;
import dev.loadflow.dispatcher.fanout.StageWebhooks;
import dev.loadflow.dispatcher.finish.Finisher;
import dev.loadflow.dispatcher.finish.RetryPolicy;
import dev.loadflow.dispatcher.internal.InternalActions;
import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.JdkHttpTransport;
import dev.loadflow.dispatcher.send.VertxHttpTransport;
import dev.loadflow.evals.sim.ChannelSimulator;
import dev.loadflow.model.action.Channel;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.pg.PgWakeups;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.processed.PgProcessedEvents;
import dev.loadflow.store.queue.PgLoadQueue;
import dev.loadflow.store.stage.PgLoadStages;
import dev.loadflow.store.timer.PgTimerStore;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import dev.loadflow.worker.consume.QueueConsumer;
import dev.loadflow.worker.hold.PoisonGate;
import dev.loadflow.worker.lock.LoadLock;
import dev.loadflow.worker.run.LoadRun;
import dev.loadflow.worker.run.WorkerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The services' loops in one JVM on a real clock, against a real PostgreSQL (fsync on; a
 * benchmark refuses the embedded one) and the channel simulator: what the benchmarks measure.
 */
final class BenchRig implements AutoCloseable {

    static final Clock CLOCK = Clock.tick(Clock.systemUTC(), Duration.ofNanos(1_000));

    /** The loops' linger, as in the services (-Dloadflow.bench.linger-ms to compare). */
    /** Internal actions in hand per dispatcher (as {@code loadflow.dispatcher.concurrency}). */
    static final int SENDS = Integer.getInteger("loadflow.bench.dispatcher-concurrency", 128);
    /** The ceiling of a channel's adaptive in-flight limit per dispatcher (as {@code loadflow.channels.<channel>.max-concurrency}). */
    static final int CHANNEL_SENDS = Integer.getInteger("loadflow.bench.channel-concurrency", 256);
    static final Duration LINGER = Duration.ofMillis(Long.getLong("loadflow.bench.linger-ms", 5));

    /**
     * What two of the changes bought, measured by undoing them ({@code -D...=true}): a NOTIFY in
     * the writing transaction (the V1 triggers) instead of {@link PgWakeups} after the commit, and
     * sequential scans allowed on the stores' connections.
     */
    static final boolean NOTIFY_IN_TRANSACTION = Boolean.getBoolean("loadflow.bench.notify-in-transaction");
    static final boolean SEQSCAN = Boolean.getBoolean("loadflow.bench.seqscan");

    /**
     * The V1 triggers (dropped in V4): each insert notifies inside its own transaction. Taken
     * from V1 itself, where they end the file (an applied migration never changes).
     */
    private static String notifyTriggers() throws IOException {
        try (var in = BenchRig.class.getResourceAsStream("/db/migration/V1__loadflow_schema.sql")) {
            String v1 = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return v1.substring(v1.indexOf("CREATE FUNCTION loadflow_notify()"));
        }
    }

    final TestDatabase db;
    final Vertx vertx;
    final Pool pool;
    final PgNotifications notifications;
    final ChannelSimulator channels;
    final PgEventStore events;
    final PgOutbox outbox;
    final PgLoadQueue queue;
    private final PgTimerStore timers;
    private final PgStores stores;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<QueueConsumer> consumers = new ArrayList<>();
    private final List<DispatchLoop> loops = new ArrayList<>();

    private BenchRig(String name) throws IOException {
        assumeTrue(System.getenv("QUARKUS_DATASOURCE_JDBC_URL") != null,
                "benchmarks run on a real PostgreSQL with fsync on: set QUARKUS_DATASOURCE_JDBC_URL");
        db = PostgresServer.get().createDatabase(name);
        vertx = Vertx.vertx();
        pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(32)).using(vertx)
                .connectingTo(db.connectOptions().addProperty("enable_seqscan", SEQSCAN ? "on" : "off").addProperty("jit", "off")
                        // as the services' pools; on Citus custom plans, as the operations guide says
                        .addProperty("plan_cache_mode", db.citus() ? "auto" : "force_generic_plan")).build();
        notifications = PgNotifications.listen(vertx, db.connectOptions(), Duration.ofSeconds(1),
                PgNotifications.OUTBOX, PgNotifications.TIMERS, PgNotifications.QUEUE);
        channels = ChannelSimulator.start(0, null);
        Wakeups wakeups = new PgWakeups(pool);
        if (NOTIFY_IN_TRANSACTION) {
            db.execute(notifyTriggers());
            wakeups = Wakeups.NONE;
        }
        stores = StoreProducers.storesOn(pool, CLOCK, wakeups, db.citus());
        events = stores.eventStore();
        outbox = stores.outbox(Duration.ofSeconds(90));
        queue = stores.queue(Duration.ofMinutes(5), notifications.signal(PgNotifications.QUEUE));
        timers = stores.timers(Duration.ofSeconds(30), null);
    }

    static BenchRig start(String name) throws IOException {
        return new BenchRig(name);
    }

    /** Starts a load worker with the service's defaults (8 batches of up to 16 at once), the SOP of client A. */
    void startWorker() {
        startWorker(Harness.sop(), LoadLock.NONE);
    }

    /** Starts a load worker deciding with {@code policy}, {@code lock} around each run. */
    void startWorker(dev.loadflow.model.policy.DecisionPolicy policy, LoadLock lock) {
        startWorker(policy, lock, new QueueConsumer.Settings(8, Integer.getInteger("loadflow.bench.batch-size", 64),
                Integer.getInteger("loadflow.bench.per-load", 10), LINGER, Duration.ofSeconds(1), Duration.ofMinutes(2),
                Duration.ofSeconds(1), Duration.ofSeconds(30)));
    }

    /** Starts a load worker deciding with {@code policy}, {@code lock} around each run, its loop as {@code settings} say. */
    void startWorker(dev.loadflow.model.policy.DecisionPolicy policy, LoadLock lock, QueueConsumer.Settings settings) {
        WorkerMetrics metrics = new WorkerMetrics(registry);
        LoadRun run = LoadRun.builder(events, policy, CLOCK).lock(lock).metrics(metrics).build();
        PoisonGate gate = new PoisonGate(queue, stores.heldLoads(),
                new PoisonGate.Settings(PoisonGate.OnPoison.HOLD, 10, Duration.ofMinutes(1)), metrics, CLOCK);
        QueueConsumer consumer = new QueueConsumer(queue, run, gate, metrics, settings,
                QueueConsumer.DatabaseProbe.selectOne(pool), CLOCK);
        consumer.start();
        consumers.add(consumer);
    }

    /** The lock per load (a lease row) (as {@code loadflow.worker.load-lock.enabled}). */
    /** What the counter {@code name} has counted in this rig's services so far. */
    double counted(String name) {
        return registry.find(name).counters().stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    }

    LoadLock loadLock() {
        return new dev.loadflow.worker.lock.PgLeaseLock(pool, CLOCK, Duration.ofMinutes(3));
    }

    /**
     * Starts one more dispatcher as shipped: batches of 50 per channel, 128 internal actions in hand, and per
     * channel an adaptive in-flight limit up to 256 (the defaults).
     */
    void startDispatcher() {
        ChannelClients clients = new ChannelClients(PlainConfigs.channels(channels.base()),
                "jdk".equals(System.getProperty("loadflow.bench.transport")) ? new JdkHttpTransport()
                        : new VertxHttpTransport(vertx, CHANNEL_SENDS), CLOCK);
        DispatcherMetrics metrics = new DispatcherMetrics(registry);
        ChannelGuards guards = new ChannelGuards(PlainConfigs.circuit(1000), c -> CHANNEL_SENDS, registry,
                ChannelGuards.CircuitListener.NONE);
        Delivery delivery = new Delivery(clients, new InternalActions(timers, new PgLoadStages(pool), CLOCK),
                new StageWebhooks(new PgProcessedEvents(pool), clients, Duration.ofSeconds(10), CLOCK), guards);
        Finisher finisher = new Finisher(outbox, queue,
                new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(150), new SplittableRandom()),
                stores.opsAlerts(), metrics, CLOCK);
        RowDispatcher dispatcher = new RowDispatcher(outbox, delivery, finisher, metrics, CLOCK);
        DispatchLoop loop = new DispatchLoop(outbox, dispatcher, notifications.signal(PgNotifications.OUTBOX), CLOCK,
                50, channel -> channel == Channel.INTERNAL ? SENDS : guards.capacity(channel), Duration.ofSeconds(1), LINGER,
                Duration.ofSeconds(30));
        loop.start();
        loops.add(loop);
    }

    /** Mean messages per worker batch so far, and the number of batches. */
    String batches() {
        var summary = registry.find("loadflow.worker.batch.size").summary();
        return summary == null ? "no worker" : String.format("%.1f messages per batch over %d batches",
                summary.mean(), summary.count());
    }

    long count(String sql) {
        return Pg.await(pool.preparedQuery(sql).execute()).iterator().next().getLong(0);
    }

    @Override
    public void close() {
        consumers.forEach(c -> c.stop(Duration.ofSeconds(5)));
        loops.forEach(l -> l.stop(Duration.ofSeconds(5)));
        channels.close();
        notifications.close();
        pool.close().toCompletionStage().toCompletableFuture().join();
        vertx.close().toCompletionStage().toCompletableFuture().join();
        db.close();
    }
}
