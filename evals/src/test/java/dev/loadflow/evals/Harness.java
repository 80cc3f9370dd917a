package dev.loadflow.evals;

import dev.loadflow.dispatcher.DispatcherConfig;
import dev.loadflow.dispatcher.DispatcherMetrics;
import dev.loadflow.dispatcher.claim.RowDispatcher;
import dev.loadflow.dispatcher.deliver.Delivery;
import dev.loadflow.dispatcher.fanout.StageWebhooks;
import dev.loadflow.dispatcher.finish.Finisher;
import dev.loadflow.dispatcher.finish.RetryPolicy;
import dev.loadflow.dispatcher.internal.InternalActions;
import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.JdkHttpTransport;
import dev.loadflow.evals.sim.ChannelSimulator;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.model.policy.SopPolicy;
import dev.loadflow.model.policy.SopRules;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.pump.fire.PumpMetrics;
import dev.loadflow.pump.fire.TimerPump;
import dev.loadflow.service.store.StoreProducers;
import dev.loadflow.service.trace.Traces;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.alert.OpsAlerts;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.WakeupSignal;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.processed.PgProcessedEvents;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.PgLoadQueue;
import dev.loadflow.store.queue.PgUnrunReceives;
import dev.loadflow.store.queue.QueueMessage;
import dev.loadflow.store.queue.ReceivedMessage;
import dev.loadflow.store.queue.SqsFifoLoadQueue;
import dev.loadflow.store.sop.SopVersions;
import dev.loadflow.store.stage.PgLoadStages;
import dev.loadflow.store.timer.TimerStore;
import dev.loadflow.testing.ElasticMq;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import dev.loadflow.worker.hold.HeldRepairs;
import dev.loadflow.worker.hold.PoisonGate;
import dev.loadflow.worker.lock.LoadLock;
import dev.loadflow.worker.policy.SopSource;
import dev.loadflow.worker.run.LoadRun;
import dev.loadflow.worker.run.RunOutcome;
import dev.loadflow.worker.run.RunResult;
import dev.loadflow.worker.run.WorkerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * The real worker ({@link LoadRun}), dispatcher ({@link RowDispatcher}) and pump
 * ({@link TimerPump}) code on one PostgreSQL database and one {@link FakeClock}, against a
 * {@link ChannelSimulator} over real HTTP. ADR 0003: "advance the clock, pump timers, process
 * the queue, dispatch the outbox". Each step runs synchronously, so a scenario reads in order.
 */
public final class Harness implements AutoCloseable {

    public static final Duration LEASE = Duration.ofSeconds(90);
    public static final Duration BUDGET = Duration.ofSeconds(150);
    /** The worker's poison settings: held after three failed deliveries, looked at again every minute. */
    static final int MAX_DELIVERIES = 3;
    static final Duration HOLD_RECHECK = Duration.ofMinutes(1);

    final FakeClock clock;
    final TestDatabase database;
    final ChannelSimulator channels;
    final EventStore events;
    final Outbox outbox;
    final TimerStore timers;
    final LoadQueue queue;
    final OpsAlerts alerts;
    final HeldLoads held;
    final HeldRepairs repairs;
    /** The clients' stored SOP versions ({@code sop_version}); the worker reads them after {@link #useStoredSops}. */
    final SopVersions sops;
    private final PoisonGate gate;
    /** Every span the harness's services end, as an OTLP collector would receive them. */
    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final Traces traces;
    private final SdkTracerProvider tracerProvider;
    RowDispatcher dispatcher;
    final TimerPump pump;
    private final Vertx vertx;
    private final Pool pool;
    private final WorkerMetrics workerMetrics;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final SimpleMeterRegistry workerRegistry = new SimpleMeterRegistry();
    private ChannelClients clients;
    private ChannelGuards guards;
    private final DispatcherMetrics dispatcherMetrics;
    private LoadRun worker;

    /** Makes the load queue a harness runs on, from its pool and clock. */
    interface QueueFactory {
        LoadQueue create(Pool pool, FakeClock clock);
    }

    /** SQS FIFO on {@code sqs}: a fresh queue and dead-letter queue for each harness. */
    static QueueFactory sqsQueue(ElasticMq sqs) {
        return (pool, clock) -> {
            String suffix = UUID.randomUUID().toString().substring(0, 8);
            return new SqsFifoLoadQueue(sqs.client(), sqs.createFifoQueue("loads-" + suffix),
                    sqs.createFifoQueue("loads-dead-" + suffix), Duration.ofSeconds(30), clock,
                    new PgUnrunReceives(pool, clock));
        };
    }

    /** The default: the PostgreSQL queue in the harness's database (on a Citus coordinator, in its Citus form). */
    static final QueueFactory POSTGRES_QUEUE = (pool, clock) ->
            StoreProducers.storesOn(pool, clock, Wakeups.NONE, PostgresServer.get().citus()).queue(Duration.ofMinutes(5), new WakeupSignal());

    private Harness(String name, Instant start, QueueFactory queues) throws IOException {
        clock = FakeClock.at(start);
        database = PostgresServer.get().lendDatabase("eval_" + name);
        vertx = Vertx.vertx();
        pool = database.pool(vertx, 8);
        channels = ChannelSimulator.start(0, null);
        PgStores stores = StoreProducers.storesOn(pool, clock, Wakeups.NONE, database.citus());
        events = stores.eventStore();
        outbox = stores.outbox(LEASE);
        timers = stores.timers(Duration.ofSeconds(30), null);
        queue = queues.create(pool, clock);
        alerts = stores.opsAlerts();
        workerMetrics = new WorkerMetrics(workerRegistry);
        tracerProvider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
        traces = new Traces(OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build());
        held = stores.heldLoads();
        sops = stores.sopVersions();
        repairs = new HeldRepairs(held, queue, clock);
        gate = new PoisonGate(queue, held, new PoisonGate.Settings(PoisonGate.OnPoison.HOLD, MAX_DELIVERIES,
                HOLD_RECHECK), workerMetrics, clock);
        worker = workerWith(sop());
        clients = new ChannelClients(PlainConfigs.channels(channels.base()), new JdkHttpTransport(), clock);
        guards = new ChannelGuards(PlainConfigs.circuit(100), channel -> 16, registry, ChannelGuards.CircuitListener.NONE);
        dispatcherMetrics = new DispatcherMetrics(registry);
        dispatcher = dispatcherWith(outbox);
        pump = pumpWith(timers);
    }

    /**
     * From now on the channels' circuits open after {@code minimumCalls} calls of which half failed,
     * and let trial calls through {@code openFor} later (on the machine's clock, as resilience4j's).
     */
    void circuits(int minimumCalls, Duration openFor) {
        guards = new ChannelGuards(DispatcherConfig.Circuit.of(50, minimumCalls, minimumCalls, openFor), channel -> 16,
                registry, ChannelGuards.CircuitListener.NONE);
        dispatcher = dispatcherWith(outbox);
    }

    /**
     * From now on the SMS endpoint keeps no idempotency key (as Twilio's Messages API keeps none):
     * a send whose answer may have been lost is never sent again by itself.
     */
    void smsKeepsNoKey() {
        clients = new ChannelClients(PlainConfigs.channels(channels.base(), false), new JdkHttpTransport(), clock);
        dispatcher = dispatcherWith(outbox);
    }

    /** A dispatcher of its own on {@code store} (e.g. one that crashes at a chosen step). */
    RowDispatcher dispatcherWith(Outbox store) {
        return dispatcherWith(store, queue);
    }

    /** From now on the harness's dispatcher publishes outcomes to {@code outcomes} (e.g. a queue that goes down). */
    void publishOutcomesTo(LoadQueue outcomes) {
        dispatcher = dispatcherWith(outbox, outcomes);
    }

    /** A dispatcher of its own on {@code store}, publishing outcomes to {@code outcomes}. */
    RowDispatcher dispatcherWith(Outbox store, LoadQueue outcomes) {
        Delivery delivery = new Delivery(clients, new InternalActions(timers, new PgLoadStages(pool), clock),
                new StageWebhooks(new PgProcessedEvents(pool), clients, Duration.ofSeconds(10), clock), guards);
        Finisher finisher = new Finisher(store, outcomes,
                new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30), BUDGET, new SplittableRandom(3)),
                alerts, dispatcherMetrics, clock);
        return new RowDispatcher(store, delivery, finisher, dispatcherMetrics, clock, traces);
    }

    /** A pump of its own on {@code store} (e.g. one that crashes at a chosen step). */
    TimerPump pumpWith(TimerStore store) {
        return new TimerPump(store, queue, clock, new WakeupSignal(), 100, Duration.ofSeconds(30), Duration.ofSeconds(30),
                new PumpMetrics(registry));
    }

    /** Thrown where a test kills the process: an {@link Error}, so no recovery path catches it. */
    static final class ProcessDied extends Error {
        ProcessDied(String method) {
            super("the process died in " + method);
        }
    }

    /** {@code target} with each of {@code methods} throwing, as if the process died right there. */
    @SuppressWarnings("unchecked")
    static <T> T crashingAt(Class<T> type, T target, String... methods) {
        java.util.Set<String> dying = java.util.Set.of(methods);
        return (T) java.lang.reflect.Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[]{type}, (proxy, m, args) -> {
            if (dying.contains(m.getName())) {
                throw new ProcessDied(m.getName());
            }
            try {
                return m.invoke(target, args);
            } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    public static Harness start(String name, Instant start) throws IOException {
        return new Harness(name, start, POSTGRES_QUEUE);
    }

    /** A harness on another load queue (e.g. SQS FIFO). */
    static Harness start(String name, Instant start, QueueFactory queues) throws IOException {
        return new Harness(name, start, queues);
    }

    /** Client A's rules: 30 minutes between attempts, 3 attempts. */
    static final SopRules CLIENT_A = new SopRules(Duration.ofMinutes(30), 3,
            "Dispatch here about load {loadId}: what is your ETA? (attempt {attempt})", "#hero-desk");

    /** The SOP of client A. */
    static SopPolicy sop() {
        return new SopPolicy(client -> CLIENT_A);
    }

    LoadRun workerWith(DecisionPolicy policy) {
        return workerWith(policy, LoadLock.NONE);
    }

    /** A worker run of its own (e.g. to race another), with {@code lock} around each run. */
    LoadRun workerWith(DecisionPolicy policy, LoadLock lock) {
        return LoadRun.builder(events, policy, clock).lock(lock).metrics(workerMetrics).traces(traces).build();
    }

    /** The lock per load (a lease row) the worker takes with {@code loadflow.worker.load-lock.enabled}. */
    LoadLock loadLock() {
        return new dev.loadflow.worker.lock.PgLeaseLock(pool, clock, Duration.ofMinutes(3));
    }

    /** The worker's meters (runs, conflicts, wasted model decisions). */
    io.micrometer.core.instrument.MeterRegistry workerRegistry() {
        return workerRegistry;
    }

    /**
     * Queues {@code event} as ingest does, in the trace of its request: a server span of its own
     * (a new trace, as for a request without a {@code traceparent}).
     */
    void ingest(InboundEvent event) {
        Span request = traces.start("POST /loads/{loadId}/events", SpanKind.SERVER, null);
        try {
            queue.enqueue(QueueMessage.of(event.withTraceparent(Traces.traceparent(request))));
        } finally {
            request.end();
        }
    }

    /**
     * From now on the worker's SOP is each client's newest stored version (client A's rules when it
     * has none), read again on every decision, as a worker does after a version's notification.
     */
    void useStoredSops() {
        usePolicy(new SopPolicy(storedSops()));
    }

    /** Each client's newest stored version (client A's rules when it has none), read again on every decision. */
    SopSource storedSops() {
        return new SopSource(sops, client -> CLIENT_A, new WakeupSignal(), clock, Duration.ZERO);
    }

    /** Replaces the worker's policy (e.g. a faulty one). */
    void usePolicy(DecisionPolicy policy) {
        worker = workerWith(policy);
    }

    /** Pumps due timers, processes the queue and dispatches the outbox until nothing moves. */
    void settle() {
        for (int round = 0; round < 100; round++) {
            int moved = pumpTimers() + processQueue() + dispatchOutbox();
            if (moved == 0) {
                return;
            }
        }
        throw new IllegalStateException("the system did not settle in 100 rounds");
    }

    int pumpTimers() {
        int fired = 0;
        int n;
        while ((n = pump.pumpOnce()) > 0) {
            fired += n;
        }
        return fired;
    }

    /**
     * The load worker's loop, one message at a time, through the worker's {@link PoisonGate}: ack
     * after the append, otherwise give it back at once; poison holds its load.
     */
    int processQueue() {
        int processed = 0;
        List<ReceivedMessage> received;
        while (!(received = queue.receive(10, Duration.ZERO)).isEmpty()) {
            for (PoisonGate.Admitted admitted : gate.screen(received).admitted()) {
                String handle = admitted.message().receiptHandle();
                RunOutcome outcome;
                try {
                    outcome = worker.process(admitted.event());
                } catch (RuntimeException e) {
                    outcome = new RunOutcome(RunResult.FAILED, -1, 0, e.getClass().getSimpleName() + ": " + e.getMessage());
                }
                if (outcome.result().ack()) {
                    gate.succeeded(admitted);
                    queue.ack(handle);
                } else if (outcome.result() != RunResult.FAILED || !gate.failed(admitted, outcome.reason())) {
                    queue.release(handle, Duration.ZERO);
                }
                processed++;
            }
        }
        return processed;
    }

    int dispatchOutbox() {
        int dispatched = 0;
        List<OutboxRow> rows;
        Instant claimedAt;
        while (!(rows = outbox.pending(50, claimedAt = clock.instant())).isEmpty()) {
            dispatcher.claimed(rows, claimedAt);
            for (OutboxRow row : rows) {
                try {
                    dispatcher.dispatch(row);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
                dispatched++;
            }
        }
        return dispatched;
    }

    Pool pool() {
        return pool;
    }

    /** The load's log and outbox as two tables, for a failed scenario's report. */
    String describe(String loadId) {
        StringBuilder out = new StringBuilder();
        LoadLog log = events.read(loadId);
        out.append(String.format("%nlog of load %s (version %d)%n", loadId, log.version()));
        out.append(String.format("%4s  %-24s  %-17s  %s%n", "seq", "recorded at", "type", "entry id / reason"));
        for (RecordedEntry e : log.entries()) {
            String detail = e.entry() instanceof dev.loadflow.model.event.DecisionRecorded d
                    ? (d.filtered() ? "filtered: " : "") + d.reason() + " " + d.actions().stream().map(a -> a.type().wire()).toList()
                    : e.entry().entryId();
            out.append(String.format("%4d  %-24s  %-17s  %s%n", e.seq(), e.recordedAt(), e.entry().typeName(), detail));
        }
        out.append(String.format("%noutbox of load %s%n%-64s  %-10s  %3s  %s%n", loadId, "outbox id", "status", "att", "last failure"));
        for (Row row : Pg.await(pool.preparedQuery(
                "SELECT outbox_id, status, attempts, last_failure FROM outbox WHERE load_id = $1 ORDER BY created_at, outbox_id")
                .execute(Tuple.of(loadId)))) {
            out.append(String.format("%-64s  %-10s  %3d  %s%n", row.getString("outbox_id"), row.getString("status"),
                    row.getInteger("attempts"), Optional.ofNullable(row.getString("last_failure")).orElse("")));
        }
        return out.toString();
    }

    @Override
    public void close() {
        tracerProvider.close();
        channels.close();
        pool.close().toCompletionStage().toCompletableFuture().join();
        vertx.close().toCompletionStage().toCompletableFuture().join();
        database.close();
    }
}
