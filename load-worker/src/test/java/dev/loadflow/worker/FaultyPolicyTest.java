package dev.loadflow.worker;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.policy.Decision;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.worker.run.LoadRun;
import dev.loadflow.worker.run.RunOutcome;
import dev.loadflow.worker.run.RunResult;
import dev.loadflow.worker.run.WorkerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.util.List;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.outboxIds;
import static org.assertj.core.api.Assertions.assertThat;

/** A policy with a bug that repeats an action key: the event is still logged, as one Hero task. */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class FaultyPolicyTest {

    @Inject
    EventStore events;

    @Inject
    Clock clock;

    @Inject
    WorkerMetrics metrics;

    @Inject
    Pool pool;

    @Inject
    MeterRegistry registry;

    private double duplicateKeys() {
        return registry.get("loadflow.worker.duplicate.action.keys").counter().count();
    }

    @Test
    void aDuplicateActionKeyIsDecidedAgainAsOneHeroTaskKeyedByTheEvent() {
        String load = newLoadId();
        AskId fixed = AskId.of("eta_request", "always_the_same");
        DecisionPolicy faulty = (event, state, now) -> new Decision(
                List.of(new Action.SendSms(fixed, 1, "+15550100", "ETA?")), false, "faulty", List.of());
        LoadRun run = LoadRun.builder(events, faulty, clock).metrics(metrics).build();
        double before = duplicateKeys();
        Instant t = Instant.parse("2026-11-30T07:00:00Z");

        RunOutcome first = run.process(new InboundEvent("sms_1", load, t, t, "c-1", null,
                new EventPayload.InboundSms("+15550100", "one")));
        RunOutcome second = run.process(new InboundEvent("sms_2", load, t, t, "c-2", null,
                new EventPayload.InboundSms("+15550100", "two")));

        assertThat(first.result()).isEqualTo(RunResult.DECIDED);
        assertThat(second.result()).isEqualTo(RunResult.DECIDED);
        LoadLog log = events.read(load);
        assertThat(log.version()).isEqualTo(4);
        DecisionRecorded fallback = (DecisionRecorded) log.entries().get(3).entry();
        assertThat(fallback.eventId()).isEqualTo("sms_2");
        assertThat(fallback.needsHeroTask()).isTrue();
        assertThat(fallback.reason()).startsWith("duplicate action key");
        assertThat(duplicateKeys() - before).as("the decision bug is counted").isEqualTo(1);
        assertThat(outboxIds(pool, load)).containsExactly(
                load + "/ask:eta_request:always_the_same/1/send_sms",
                load + "/evt:sms_2/1/create_hero_task");
    }
}
