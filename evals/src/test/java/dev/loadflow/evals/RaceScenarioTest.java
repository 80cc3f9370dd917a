package dev.loadflow.evals;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.policy.Decision;
import dev.loadflow.store.outbox.OutboxMessage;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.store.timer.TimerStatus;
import dev.loadflow.store.timer.TimerStore;
import dev.loadflow.worker.run.LoadRun;
import dev.loadflow.worker.run.RunResult;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Crashes between two steps, late timers, racing workers, a faulty policy, fan-out. */
class RaceScenarioTest extends EvalScenario {

    private static final String TIMER_1_FIRED = "evt:tmr:" + LOAD + ":" + ASK + ":1";

    private void askOpenedAt0701() {
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();
    }

    @Test
    void aPumpCrashBetweenPublishAndMarkFiresAgainAndTheLogKeepsOneTimerFired() {
        askOpenedAt0701();
        at("07:31");
        TimerStore crashing = Harness.crashingAt(TimerStore.class, h.timers, "markFired");

        assertThatThrownBy(() -> h.pumpWith(crashing).pumpOnce()).hasMessageContaining("died");
        h.settle();
        assertThat(timer(1).status()).as("never marked").isEqualTo(TimerStatus.SCHEDULED);

        h.clock.advance(Duration.ofSeconds(30));
        h.settle();

        assertThat(timer(1).status()).isEqualTo(TimerStatus.FIRED);
        assertThat(logged(TIMER_1_FIRED)).isEqualTo(1);
        expectSmsKeys(key(1, "send_sms"), key(2, "send_sms"));
    }

    @Test
    void aTimerFiringLateAfterTheAskWasAnsweredChangesNothing() {
        askOpenedAt0701();
        // 07:10 the driver answers while the dispatcher is down: the cancel_timer row waits
        at("07:10").driverSays("sms_0710", "ETA 9:30");
        h.processQueue();
        // 07:45 the pump, late, fires the timer the cancel has not reached yet
        at("07:45");
        h.pumpTimers();
        h.processQueue();
        h.settle();

        DecisionRecorded noop = (DecisionRecorded) log().entries().stream().map(RecordedEntry::entry)
                .filter(e -> e.entryId().equals("dec:" + TIMER_1_FIRED)).findFirst().orElseThrow();
        assertThat(noop.filtered()).isTrue();
        assertThat(noop.reason()).contains("not open");
        expectSmsKeys(key(1, "send_sms"));
        assertThat(row(key(1, "cancel_timer")).status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(channels().delivered("slack")).hasSize(1);
    }

    /**
     * Two workers decide the same ping on the same state at once (each policy call waits for the
     * other's, so both read the log before either appends): one append wins, the other conflicts,
     * reads again, finds the ping logged and writes nothing. One decision, one SMS.
     */
    @Test
    void twoWorkerInstancesRacingOnOneLoadDecideOnce() throws Exception {
        at("06:55").assigned().settle();
        at("07:00");
        InboundEvent ping = new InboundEvent("ping_0700", LOAD, h.clock.instant(), h.clock.instant(), "c-1", null,
                new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6));
        CyclicBarrier decidingTogether = new CyclicBarrier(2);
        List<Long> versionsDecidedOn = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.loadflow.model.policy.DecisionPolicy sop = Harness.sop();
        dev.loadflow.model.policy.DecisionPolicy together = (event, state, now) -> {
            versionsDecidedOn.add(state.version());
            try {
                decidingTogether.await(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the other run never decided", e);
            }
            return sop.decide(event, state, now);
        };
        LoadRun one = h.workerWith(together);
        LoadRun two = h.workerWith(together);

        CompletableFuture<RunResult> a = CompletableFuture.supplyAsync(() -> one.process(ping).result());
        CompletableFuture<RunResult> b = CompletableFuture.supplyAsync(() -> two.process(ping).result());

        assertThat(List.of(a.get(), b.get())).containsExactlyInAnyOrder(RunResult.DECIDED, RunResult.DUPLICATE);
        assertThat(versionsDecidedOn).as("both decided on the same state: they really raced").hasSize(2)
                .containsOnly(versionsDecidedOn.getFirst());
        at("07:01").settle();
        assertThat(logged("dec:ping_0700")).isEqualTo(1);
        expectSmsKeys(key(1, "send_sms"));
    }

    @Test
    void aDuplicateActionKeyFromAFaultyPolicyBecomesOneHeroTaskKeyedByTheEvent() {
        AskId fixed = AskId.of("eta_request", "always_the_same");
        h.usePolicy((event, state, now) -> new Decision(
                List.of(new Action.SendSms(fixed, 1, DRIVER, "ETA?")), false, "faulty", List.of()));

        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH).settle();

        assertThat(smsToDriver()).extracting(d -> d.idempotencyKey())
                .containsExactly(LOAD + "/ask:eta_request:always_the_same/1/send_sms");
        assertThat(heroTasks()).singleElement().satisfies(task -> {
            assertThat(task.idempotencyKey()).isEqualTo(LOAD + "/evt:ping_0700/1/create_hero_task");
            assertThat(task.body()).contains("repeated action keys");
        });
        assertThat(logged("ping_0700")).as("the event is never lost").isEqualTo(1);
    }

    @Test
    void aFanOutEventWithOneFailingSubscriberDoesNotRunTheOthersAgain() {
        at("07:00");
        String id = LOAD + "/evt:assign_2/1/stage_changed";
        InboundEvent assigned = new InboundEvent("assign_2", LOAD, h.clock.instant(), h.clock.instant(), "c-1", null,
                new EventPayload.LoadAssigned("client-a", "+15550100", "in_transit"));
        Action changed = new Action.StageChanged("evt:assign_2", 1, "in_transit", h.clock.instant(),
                Stream.of("crm", "billing", "tms").map(name -> URI.create(h.channels.base() + "/webhooks/" + name)).toList());
        h.events.append(LOAD, List.of(assigned, DecisionRecorded.decided(assigned, h.clock.instant(), List.of(changed),
                false, "stage changed", List.of())), 0,
                List.of(OutboxMessage.of(LOAD, changed, h.clock.instant(), "c-1", "assign_2")));
        channels().failNext("webhook:billing", 503, 2);

        h.settle();
        for (int s = 0; s < 10 && row(id).status() != OutboxStatus.DISPATCHED; s++) {
            h.clock.advance(Duration.ofSeconds(5));
            h.settle();
        }

        assertThat(row(id).status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(row(id).attempts()).isEqualTo(3);
        assertThat(channels().requests("webhook:crm", id)).isEqualTo(1);
        assertThat(channels().requests("webhook:tms", id)).isEqualTo(1);
        assertThat(channels().requests("webhook:billing", id)).isEqualTo(3);
        assertThat(channels().delivered("webhook:billing")).hasSize(1);
    }
}
