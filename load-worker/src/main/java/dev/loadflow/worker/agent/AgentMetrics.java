package dev.loadflow.worker.agent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.Set;

/**
 * The agent's meters, per client: {@code loadflow.policy.llm.calls{client,result}} (result
 * {@code ok}, {@code refused}, {@code error}, {@code timeout}), {@code loadflow.policy.llm.tokens{client,direction}},
 * {@code loadflow.policy.llm.latency{client}}, {@code loadflow.policy.llm.fallbacks{client,reason}}
 * and {@code loadflow.policy.decisions{client,decided_by}}. The {@code client} label takes the
 * configured clients' ids only ({@code loadflow.sop.clients.*}), {@code unassigned}, and
 * {@code other} for the rest: a client id comes from a source's event, and each new one would
 * otherwise make a new series.
 */
public final class AgentMetrics {

    private final MeterRegistry registry;
    private final Set<String> clients;

    /** @param clients the client ids that get a label of their own */
    public AgentMetrics(MeterRegistry registry, Set<String> clients) {
        this.registry = registry;
        this.clients = Set.copyOf(clients);
    }

    /** The {@code client} label of a load's client id ({@code unassigned} for a load without one). */
    String label(String clientId) {
        return clientId == null ? "unassigned" : clients.contains(clientId) ? clientId : "other";
    }

    void call(String client, String result, Duration took) {
        Counter.builder("loadflow.policy.llm.calls").description("Calls to the model, by how they ended")
                .tag("client", client).tag("result", result).register(registry).increment();
        Timer.builder("loadflow.policy.llm.latency").description("How long a call to the model took")
                .tag("client", client).register(registry).record(took);
    }

    void tokens(String client, long in, long out) {
        Counter.builder("loadflow.policy.llm.tokens").description("Tokens sent to and received from the model")
                .tag("client", client).tag("direction", "in").register(registry).increment(in);
        Counter.builder("loadflow.policy.llm.tokens").description("Tokens sent to and received from the model")
                .tag("client", client).tag("direction", "out").register(registry).increment(out);
    }

    void fallback(String client, String reason) {
        Counter.builder("loadflow.policy.llm.fallbacks")
                .description("Decisions the SOP took because the model's answers were refused twice, or it failed or was too slow")
                .tag("client", client).tag("reason", reason).register(registry).increment();
    }

    void decided(String client, String decidedBy) {
        Counter.builder("loadflow.policy.decisions").description("Decisions of the policy, by who took them")
                .tag("client", client).tag("decided_by", decidedBy).register(registry).increment();
    }
}
