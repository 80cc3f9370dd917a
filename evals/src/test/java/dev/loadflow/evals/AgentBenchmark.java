package dev.loadflow.evals;

import dev.langchain4j.model.openai.OpenAiChatModel;
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
            rig.startWorker(new AgentPolicy(chat, "scripted", client -> Harness.CLIENT_A, client -> null,
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
}
