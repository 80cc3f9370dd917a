package dev.loadflow.worker;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.model.policy.SopPolicy;
import dev.loadflow.service.loop.LoopConfig;
import dev.loadflow.service.store.QueueConfig;
import dev.loadflow.service.trace.Traces;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.sop.SopVersions;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.driver.PgDriverLoads;
import dev.loadflow.store.inbound.PgInboundMessages;
import dev.loadflow.store.provider.PgProviderMessages;
import dev.loadflow.store.provider.ProviderMessages;
import dev.loadflow.worker.agent.AgentMetrics;
import dev.loadflow.worker.agent.AgentPolicy;
import dev.loadflow.worker.agent.PolicyConfig;
import dev.loadflow.worker.consume.QueueConsumer;
import dev.loadflow.worker.hold.HeldRepairs;
import dev.loadflow.worker.hold.PoisonGate;
import dev.loadflow.worker.ingest.Ingests;
import dev.loadflow.worker.lock.LoadLock;
import dev.loadflow.worker.lock.PgLeaseLock;
import dev.loadflow.worker.policy.SopConfig;
import dev.loadflow.worker.policy.SopSource;
import dev.loadflow.worker.run.LoadRun;
import dev.loadflow.worker.run.WorkerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.DefaultBean;
import io.vertx.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;

/** Wires the plain-Java run and consumer to the Quarkus pool, config and registry. */
@ApplicationScoped
public class WorkerProducers {

    private static final Logger LOG = Logger.getLogger(WorkerProducers.class);


    private static final Duration SQS_MAX_VISIBILITY = Duration.ofHours(12);

    @Produces
    @Singleton
    Ingests ingests(LoadQueue queue, EventStore events) {
        return new Ingests(queue, events);
    }

    @Produces
    @Singleton
    PgDriverLoads driverLoads(Pool pool) {
        return new PgDriverLoads(pool);
    }

    @Produces
    @Singleton
    PgInboundMessages inboundMessages(Pool pool) {
        return new PgInboundMessages(pool);
    }

    @Produces
    @Singleton
    ProviderMessages providerMessages(Pool pool) {
        return new PgProviderMessages(pool);
    }

    @Produces
    @Singleton
    WorkerMetrics metrics(MeterRegistry registry) {
        return new WorkerMetrics(registry);
    }

    /** The clients' SOPs as numbered versions ({@code sop_version}). */
    @Produces
    @Singleton
    SopVersions sopVersions(PgStores stores) {
        return stores.sopVersions();
    }

    /** Each client's SOP as the policies read it: its newest stored version, else the configured rules. */
    @Produces
    @Singleton
    SopSource sopSource(SopVersions versions, SopConfig sop, PgNotifications notifications, Clock clock) {
        return new SopSource(versions, sop::rulesFor, notifications.signal(PgNotifications.SOP), clock, sop.refresh());
    }

    /**
     * The policy {@code loadflow.policy.kind} names: the SOP (default), or an OpenAI-compatible
     * model with the SOP as its fallback. Both sit behind the deterministic filter.
     */
    @Produces
    @Singleton
    @DefaultBean
    DecisionPolicy policy(SopConfig sop, SopSource sops, PolicyConfig policy, WorkerConfig worker, MeterRegistry registry) {
        if (policy.kind() == PolicyConfig.Kind.SOP) {
            return new SopPolicy(sops);
        }
        PolicyConfig.Llm llm = policy.llm();
        String baseUrl = llm.baseUrl().orElseThrow(() -> new IllegalStateException(
                "loadflow.policy.kind=llm needs loadflow.policy.llm.base-url (an OpenAI-compatible API, e.g. https://host/v1)"));
        String model = llm.model().orElseThrow(() -> new IllegalStateException(
                "loadflow.policy.kind=llm needs loadflow.policy.llm.model"));
        if (llm.timeout().multipliedBy(2).compareTo(worker.runDeadline()) >= 0) {
            throw new IllegalStateException("loadflow.policy.llm.timeout (" + llm.timeout() + ") must be less than half of "
                    + "loadflow.worker.run-deadline (" + worker.runDeadline() + "): an answer and its retry must fit in a run, "
                    + "with time left for the SOP's fallback");
        }
        ChatModel chat = AgentPolicy.bounded(OpenAiChatModel.builder().baseUrl(baseUrl).apiKey(llm.apiKey().orElse("none"))
                .modelName(model).timeout(llm.timeout()).maxRetries(0).temperature(0.0).build(), llm.maxConcurrency());
        return new AgentPolicy(chat, model, sops, client -> Stream.of(llm.instructions(),
                        Optional.ofNullable(client).map(llm.clients()::get).flatMap(PolicyConfig.Llm.Client::instructions))
                .flatMap(Optional::stream).reduce((a, b) -> a + "\n" + b).orElse(null), new AgentMetrics(registry, sop.clients().keySet()));
    }

    /**
     * The lock per load: {@code loadflow.worker.load-lock.enabled}, on by default with the LLM
     * policy. A lease row per load, holding no connection while a run waits for its model; the
     * lease outlasts the run's deadline, so only a holder that died leaves one to end by itself.
     */
    @Produces
    @Singleton
    LoadLock loadLock(WorkerConfig config, PolicyConfig policy, Pool pool, Clock clock) {
        return config.loadLock().enabled().orElse(policy.kind() == PolicyConfig.Kind.LLM)
                ? new PgLeaseLock(pool, clock, config.runDeadline().plusSeconds(30)) : LoadLock.NONE;
    }

    @Produces
    @Singleton
    LoadRun loadRun(EventStore events, DecisionPolicy policy, Clock clock, LoadLock lock, WorkerConfig config,
                    WorkerMetrics metrics, Traces traces) {
        return LoadRun.builder(events, policy, clock).lock(lock).conflictRetries(config.conflictRetries())
                .projectionCache(config.projectionCache()).metrics(metrics).traces(traces).build();
    }

    @Produces
    @Singleton
    HeldLoads heldLoads(PgStores stores) {
        return stores.heldLoads();
    }

    @Produces
    @Singleton
    HeldRepairs heldRepairs(HeldLoads held, LoadQueue queue, Clock clock) {
        return new HeldRepairs(held, queue, clock);
    }

    @Produces
    @Singleton
    PoisonGate poisonGate(LoadQueue queue, HeldLoads held, WorkerMetrics metrics, WorkerConfig config,
                          QueueConfig queueConfig, Clock clock) {
        if (config.onPoison() == PoisonGate.OnPoison.HOLD && queueConfig.kind() == QueueConfig.Kind.SQS
                && config.holdRecheck().compareTo(SQS_MAX_VISIBILITY) > 0) {
            throw new IllegalStateException("loadflow.worker.hold-recheck (" + config.holdRecheck()
                    + ") must be at most 12 hours on SQS, the longest a message can stay hidden");
        }
        return new PoisonGate(queue, held, new PoisonGate.Settings(config.onPoison(), config.maxDeliveries(),
                config.holdRecheck()), metrics, clock);
    }

    @Produces
    @Singleton
    QueueConsumer consumer(LoadQueue queue, LoadRun run, PoisonGate gate, WorkerMetrics metrics, WorkerConfig config,
                           QueueConfig queueConfig, PolicyConfig policy, LoopConfig loops, Pool pool, Clock clock) {
        if (config.runDeadline().compareTo(queueConfig.visibilityTimeout()) >= 0) {
            throw new IllegalStateException("loadflow.worker.run-deadline (" + config.runDeadline()
                    + ") must be shorter than loadflow.queue.visibility-timeout (" + queueConfig.visibilityTimeout()
                    + "), or a message would be redelivered while its run is still going");
        }
        boolean llm = policy.kind() == PolicyConfig.Kind.LLM;
        int perLoad = config.perLoad().orElse(llm ? 1 : 10);
        // with a model, each run is a batch of its own under its own deadline, one per model call in flight
        int batchSize = config.batchSize().orElse(llm ? 1 : 64);
        int concurrency = config.concurrency().orElse(llm ? policy.llm().maxConcurrency() : 8);
        if (concurrency < 1 || batchSize < 1 || perLoad < 1) {
            throw new IllegalStateException("loadflow.worker.concurrency, loadflow.worker.batch-size and "
                    + "loadflow.worker.per-load must be at least 1, got " + concurrency + ", " + batchSize + " and " + perLoad);
        }
        if (llm && (long) concurrency * batchSize > policy.llm().maxConcurrency()) {
            LOG.warnf("loadflow.worker.concurrency × batch-size (%d) is more than loadflow.policy.llm.max-concurrency (%d): "
                    + "runs wait for a model slot within their run deadline", (long) concurrency * batchSize,
                    policy.llm().maxConcurrency());
        }
        return new QueueConsumer(queue, run, gate, metrics, new QueueConsumer.Settings(concurrency, batchSize, perLoad,
                config.linger(), config.pollWait(), config.runDeadline(), config.retryDelay(), loops.maxBackoff()),
                QueueConsumer.DatabaseProbe.selectOne(pool), clock);
    }
}
