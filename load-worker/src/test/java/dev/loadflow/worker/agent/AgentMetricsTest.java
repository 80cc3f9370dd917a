package dev.loadflow.worker.agent;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class AgentMetricsTest {

    @Test
    void aClientIdNobodyConfiguredIsCountedAsOtherSoASourceCannotMakeNewSeries() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AgentMetrics metrics = new AgentMetrics(registry, Set.of("client-a"));

        for (String clientId : new String[]{"client-a", "client-zz-1", "client-zz-2", null}) {
            metrics.call(metrics.label(clientId), "ok", Duration.ofMillis(5));
        }

        assertThat(registry.find("loadflow.policy.llm.calls").counters())
                .extracting(c -> c.getId().getTag("client") + "=" + (long) c.count())
                .containsExactlyInAnyOrder("client-a=1", "other=2", "unassigned=1");
    }
}
