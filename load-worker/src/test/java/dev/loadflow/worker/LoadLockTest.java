package dev.loadflow.worker;

import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.worker.lock.LoadLock;
import dev.loadflow.worker.lock.PgLoadLock;
import dev.loadflow.worker.run.LoadRun;
import dev.loadflow.worker.run.RunResult;
import dev.loadflow.worker.run.WorkerMetrics;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;

/** The optional advisory lock: a run that finds the load locked skips the policy call entirely. */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class LoadLockTest {

    @Inject
    EventStore events;

    @Inject
    DecisionPolicy policy;

    @Inject
    Clock clock;

    @Inject
    WorkerMetrics metrics;

    @Inject
    Pool pool;

    @Test
    void aRunOfALockedLoadSkipsThePolicyAndWritesNothingThenGoesAheadOnceFree() {
        String load = newLoadId();
        AtomicInteger policyCalls = new AtomicInteger();
        DecisionPolicy counting = (event, state, now) -> {
            policyCalls.incrementAndGet();
            return policy.decide(event, state, now);
        };
        PgLoadLock lock = new PgLoadLock(pool);
        LoadRun run = new LoadRun(events, counting, clock, lock, 5, metrics);
        Instant t = Instant.parse("2026-11-30T07:00:00Z");
        InboundEvent assigned = new InboundEvent("assign_1", load, t, t, "c-1", null,
                new EventPayload.LoadAssigned("client-a", "+15550100", "dispatched"));

        try (LoadLock.Lease held = lock.tryLock(load).orElseThrow()) {
            assertThat(lock.tryLock(load)).as("a second lease on the same load").isEmpty();
            assertThat(run.process(assigned).result()).isEqualTo(RunResult.LOCKED);
            assertThat(policyCalls).hasValue(0);
            assertThat(events.read(load).version()).isZero();
        }

        assertThat(run.process(assigned).result()).isEqualTo(RunResult.DECIDED);
        assertThat(policyCalls).hasValue(1);
        assertThat(events.read(load).version()).isEqualTo(2);
        try (LoadLock.Lease again = lock.tryLock(load).orElseThrow()) {
            assertThat(again).as("the run released its lease").isNotNull();
        }
    }
}
