package dev.loadflow.worker;

import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.worker.lock.LoadLock;
import dev.loadflow.worker.lock.PgLeaseLock;
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

/** The optional lock per load (a lease row): a run that finds the load locked skips the policy call entirely. */
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
        PgLeaseLock lock = new PgLeaseLock(pool, clock, java.time.Duration.ofMinutes(3));
        LoadRun run = LoadRun.builder(events, counting, clock).lock(lock).metrics(metrics).build();
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

    /** A holder that died never releases its lease: the lease ends by itself, and the load goes on. */
    @Test
    void aLeaseWhoseHolderDiedEndsByItself() {
        String load = newLoadId();
        dev.loadflow.model.time.FakeClock fake = dev.loadflow.model.time.FakeClock.at(Instant.parse("2026-12-01T07:00:00Z"));
        PgLeaseLock lock = new PgLeaseLock(pool, fake, java.time.Duration.ofMinutes(3));

        assertThat(lock.tryLock(load)).as("taken by a run whose worker then dies").isPresent();
        fake.advance(java.time.Duration.ofMinutes(2));
        assertThat(lock.tryLock(load)).as("its lease still holds").isEmpty();
        fake.advance(java.time.Duration.ofMinutes(1));
        assertThat(lock.tryLock(load)).as("its lease ended").isPresent();
    }

    /**
     * A model's answer takes a while; under the lock, a batch's loads wait for it side by side:
     * a lease holds no connection, so sixteen loads wait at once on a pool of four.
     */
    @Test
    void aBatchOfManyLoadsUnderTheLockWaitsForItsModelSideBySideOnASmallPool() throws Exception {
        io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
        Pool small = PostgresTestResource.current().pool(vertx, 4);
        try {
            EventStore store = new dev.loadflow.store.eventlog.PgEventStore(small, clock, new dev.loadflow.store.pg.PgWakeups(small));
            java.util.concurrent.atomic.AtomicInteger inPolicy = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.CountDownLatch allWaiting = new java.util.concurrent.CountDownLatch(16);
            DecisionPolicy slow = (event, state, now) -> {
                most.accumulateAndGet(inPolicy.incrementAndGet(), Math::max);
                allWaiting.countDown();
                try {
                    // the model answers once every load is waiting for it (or after 10 s)
                    allWaiting.await(10, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                inPolicy.decrementAndGet();
                return policy.decide(event, state, now);
            };
            LoadRun run = LoadRun.builder(store, slow, clock).lock(new PgLeaseLock(small, clock, java.time.Duration.ofMinutes(3)))
                    .metrics(metrics).build();
            Instant t = Instant.parse("2026-11-30T07:00:00Z");
            java.util.List<InboundEvent> batch = new java.util.ArrayList<>();
            for (int i = 0; i < 16; i++) {
                batch.add(new InboundEvent("assign_1", newLoadId(), t, t, "c-1", null,
                        new EventPayload.LoadAssigned("client-a", "+15550100", "dispatched")));
            }

            var outcomes = java.util.concurrent.CompletableFuture.supplyAsync(() -> run.processAll(batch))
                    .get(60, java.util.concurrent.TimeUnit.SECONDS);

            assertThat(outcomes).extracting(o -> o.result()).containsOnly(RunResult.DECIDED);
            assertThat(most.get()).as("every load waiting for the model at once, on four connections").isEqualTo(16);
        } finally {
            small.close();
            vertx.close();
        }
    }
}
