package dev.loadflow.evals;

import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.loadflow.model.policy.SopBook;
import dev.loadflow.evals.agent.ScriptedChatModel;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.worker.agent.AgentMetrics;
import dev.loadflow.worker.agent.AgentPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark, not a test (excluded from the suite): the end-to-end run of {@link EndToEndBenchmark}
 * (flat out: assignment, then pings and replies, each ping's SMS answered at once) with the
 * LLM policy asking a scripted OpenAI-compatible model over HTTP, which answers as client A's
 * SOP after {@code -Dloadflow.bench.model-latency} (default {@code PT0.2S}, a fast hosted model).
 * It prints how many model calls each inbound event costs: only what the filter lets through
 * reaches the model (no outcome, no stale timer). Run:
 * <pre>
 * ./mvnw -B -pl evals test -Dtest=AgentBenchmark -Dloadflow.excluded.groups=none
 * </pre>
 * {@link #aBacklogIsDecidedOnceEach} (run alone with {@code -Dtest=AgentBenchmark#aBacklogIsDecidedOnceEach})
 * queues a backlog at once instead, and runs the worker as the LLM policy configures it.
 */
@Tag("benchmark")
class AgentBenchmark {

    @Test
    void modelCallsPerInboundEvent() throws Exception {
        Duration latency = Duration.parse(System.getProperty("loadflow.bench.model-latency", "PT0.2S"));
        int loads = Integer.getInteger("loadflow.bench.loads", 50);
        int eventsPerLoad = 11;
        try (ScriptedChatModel model = new ScriptedChatModel(request -> SopLikeModel.answer(request).after(latency));
             BenchRig rig = BenchRig.start("bench_agent")) {
            OpenAiChatModel chat = OpenAiChatModel.builder().baseUrl(model.baseUrl()).apiKey("bench").modelName("scripted")
                    .timeout(Duration.ofSeconds(20)).maxRetries(0).build();
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            rig.startWorker(new AgentPolicy(chat, "scripted", SopBook.configured(client -> Harness.CLIENT_A), client -> null,
                    new AgentMetrics(meters, Set.of("client-a"))), rig.loadLock());
            rig.startDispatcher();

            Map<String, Long> ingestedAt = new ConcurrentHashMap<>();
            long start = System.nanoTime();
            EndToEndBenchmark.closedLoop(rig, loads, eventsPerLoad, ingestedAt);
            while (rig.count("SELECT (SELECT count(*) FROM load_queue) + (SELECT count(*) FROM outbox WHERE status = 'pending')") > 0) {
                Thread.sleep(20);
                assertThat(System.nanoTime() - start).isLessThan(TimeUnit.MINUTES.toNanos(10));
            }
            double seconds = (System.nanoTime() - start) / 1e9;

            long inbound = (long) loads * eventsPerLoad;
            long messages = rig.count("SELECT count(*) FROM event_log WHERE kind = 'event'");
            long byModel = rig.count("SELECT count(*) FROM event_log WHERE kind = 'decision' AND body->>'decidedBy' = 'llm'");
            long filtered = rig.count("SELECT count(*) FROM event_log WHERE kind = 'decision' AND (body->>'filtered')::boolean");
            assertThat(byModel).as("every decision the filter let through, by the model").isEqualTo(inbound);
            assertThat(model.calls()).as("one call per decision: none refused, none wasted").isEqualTo((int) byModel);
            double[] sms = rig.channels.delivered("sms").stream().filter(d -> ingestedAt.containsKey(d.idempotencyKey()))
                    .mapToDouble(d -> (d.receivedNanos() - ingestedAt.get(d.idempotencyKey())) / 1e6).sorted().toArray();
            String table = String.format("""

                    == the agent end to end: %d cores, %s, model latency %d ms ==
                    inbound events (ingested)          %8d
                    messages run (with outcomes)       %8d
                    decisions by the filter (no model) %8d
                    model calls                        %8d
                    model calls per inbound event      %8.2f
                    model calls per message run        %8.2f
                    inbound events/s                   %8.1f
                    ingest to SMS p50 / p99 ms         %8.1f / %.1f
                    """, Runtime.getRuntime().availableProcessors(), PostgresServer.get(), latency.toMillis(), inbound,
                    messages, filtered, model.calls(), (double) model.calls() / inbound, (double) model.calls() / messages,
                    inbound / seconds, EndToEndBenchmark.percentile(sms, 0.5), EndToEndBenchmark.percentile(sms, 0.99));
            System.out.println(table);
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "benchmark-agent.txt"), table);
        }
    }

    /**
     * A backlog of {@code loadflow.bench.loads} (100) loads × 10 events queued at once, decided by
     * a model answering in {@code loadflow.bench.model-latency} (2 s; try 10 s and 60 s) with the
     * worker as the LLM policy configures it: each run a batch of its own under its own deadline,
     * {@code loadflow.bench.model-concurrency} (64) runs and model calls in flight. Every event is
     * decided once, with one model call, no run abandoned; it prints decisions per second.
     */
    @Test
    void aBacklogIsDecidedOnceEach() throws Exception {
        Duration latency = Duration.parse(System.getProperty("loadflow.bench.model-latency", "PT2S"));
        int loads = Integer.getInteger("loadflow.bench.loads", 100);
        int inFlight = Integer.getInteger("loadflow.bench.model-concurrency", 64);
        int eventsPerLoad = 10;
        // as an operator sets them for this model: a timeout above its latency, a deadline for an answer and its retry
        Duration timeout = latency.multipliedBy(3).dividedBy(2).plusSeconds(5);
        Duration deadline = timeout.multipliedBy(2).plusSeconds(10);
        deadline = deadline.compareTo(Duration.ofMinutes(2)) < 0 ? Duration.ofMinutes(2) : deadline;
        try (ScriptedChatModel model = new ScriptedChatModel(request -> SopLikeModel.answer(request).after(latency));
             BenchRig rig = BenchRig.start("bench_agent_backlog")) {
            var chat = AgentPolicy.bounded(OpenAiChatModel.builder().baseUrl(model.baseUrl()).apiKey("bench")
                    .modelName("scripted").timeout(timeout).maxRetries(0).build(), inFlight);
            rig.startWorker(new AgentPolicy(chat, "scripted", SopBook.configured(client -> Harness.CLIENT_A), client -> null,
                    new AgentMetrics(new SimpleMeterRegistry(), Set.of("client-a"))), rig.loadLock(),
                    new dev.loadflow.worker.consume.QueueConsumer.Settings(inFlight, 1, 1, BenchRig.LINGER,
                            Duration.ofSeconds(1), deadline, Duration.ofSeconds(1), Duration.ofSeconds(30)));
            rig.startDispatcher();

            long start = System.nanoTime();
            for (int i = 0; i < eventsPerLoad; i++) {
                for (int l = 0; l < loads; l++) {
                    rig.queue.enqueue(dev.loadflow.store.queue.QueueMessage.of(EndToEndBenchmark.event("L" + l, i)));
                }
            }
            long inbound = (long) loads * eventsPerLoad;
            long limit = Math.max(TimeUnit.MINUTES.toNanos(10), latency.toNanos() * inbound / inFlight * 3);
            String decidedInbound = "SELECT count(*) FROM event_log WHERE kind = 'decision' AND entry_id ~ '^dec:e[0-9]+$'";
            org.awaitility.Awaitility.await("the backlog decided").atMost(Duration.ofNanos(limit))
                    .pollInterval(Duration.ofMillis(100)).until(() -> rig.count(decidedInbound) >= inbound);
            double seconds = (System.nanoTime() - start) / 1e9;
            org.awaitility.Awaitility.await("the outcomes run and the outbox drained").atMost(Duration.ofNanos(limit))
                    .pollInterval(Duration.ofMillis(100)).until(() -> rig.count(
                            "SELECT (SELECT count(*) FROM load_queue) + (SELECT count(*) FROM outbox WHERE status = 'pending')") == 0);

            long byModel = rig.count("SELECT count(*) FROM event_log WHERE kind = 'decision' AND body->>'decidedBy' = 'llm'");
            double abandoned = rig.counted("loadflow.worker.runs.abandoned");
            double wasted = rig.counted("loadflow.policy.llm.wasted.decisions");
            assertThat(byModel).as("each inbound event decided by the model").isEqualTo(inbound);
            assertThat(model.calls()).as("one call per decision: none for a run that finished").isEqualTo((int) byModel);
            assertThat(abandoned).as("no run passed its deadline").isZero();
            String table = String.format("""

                    == the agent on a backlog: %d cores, %s, model latency %d ms, %d calls in flight ==
                    inbound events queued at once      %8d (%d loads)
                    model timeout / run deadline       %8s / %s
                    model calls                        %8d
                    runs abandoned at the deadline     %8.0f
                    decisions not logged (races)       %8.0f
                    inbound events decided per second  %8.1f
                    backlog decided in s               %8.1f
                    """, Runtime.getRuntime().availableProcessors(), PostgresServer.get(), latency.toMillis(), inFlight,
                    inbound, loads, timeout, deadline, model.calls(), abandoned, wasted, inbound / seconds, seconds);
            System.out.println(table);
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "benchmark-agent-backlog-" + latency.toSeconds() + "s.txt"), table);
        }
    }
}
