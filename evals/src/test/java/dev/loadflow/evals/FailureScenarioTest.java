package dev.loadflow.evals;

import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.QueueMessage;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** When the channels and the dispatcher fail: nothing lost, nothing twice, no loops. */
class FailureScenarioTest extends EvalScenario {

    private void askOpenedAt0701() {
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01");
    }

    private static long opsAlerts() {
        return Pg.await(h.pool().preparedQuery("SELECT count(*) FROM ops_alert WHERE load_id = $1")
                .execute(Tuple.of(LOAD))).iterator().next().getLong(0);
    }

    /** Claims due rows as a dispatcher would and returns the claim on the first ETA SMS. */
    private static OutboxRow claimFirstSms() {
        return h.outbox.pending(10, h.clock.instant()).stream()
                .filter(r -> r.outboxId().equals(key(1, "send_sms"))).findFirst().orElseThrow();
    }

    @Test
    void theSmsProviderRefusingTheNumberRaisesAnUrgentHeroTask() {
        channels().failAlways("sms", 400);
        askOpenedAt0701();
        h.settle();

        assertThat(row(key(1, "send_sms")).status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(smsToDriver()).isEmpty();
        assertThat(heroTasks()).singleElement().satisfies(task -> {
            assertThat(task.idempotencyKey()).isEqualTo(key(1, "create_hero_task"));
            assertThat(task.body()).contains("\"urgency\":\"urgent\"").contains("failed");
        });
        at("07:31").settle();
        at("09:00").settle();
        assertThat(channels().requests("sms", key(1, "send_sms"))).isEqualTo(1);
        assertThat(channels().requests("sms", key(2, "send_sms"))).as("the ask went to a Hero: no attempt 2").isZero();
        assertThat(heroTasks()).hasSize(1);
        assertThat(opsAlerts()).isZero();
    }

    @Test
    void heroToolingDownRaisesAnOpsAlertAndNoLoopOfHeroTasks() {
        channels().failAlways("sms", 400);
        channels().failAlways("hero", 503);
        askOpenedAt0701();
        h.settle();
        for (int s = 0; s < 40 && row(key(1, "create_hero_task")).status() != OutboxStatus.DEAD; s++) {
            h.clock.advance(Duration.ofSeconds(10));
            h.settle();
        }

        OutboxRow task = row(key(1, "create_hero_task"));
        assertThat(task.status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(task.lastFailure()).contains("retry budget").contains("503");
        assertThat(opsAlerts()).isEqualTo(1);
        DecisionRecorded noop = (DecisionRecorded) log().entries().stream().map(RecordedEntry::entry)
                .filter(e -> e.entryId().equals("dec:out:" + key(1, "create_hero_task") + ":failed")).findFirst().orElseThrow();
        assertThat(noop.filtered()).isTrue();
        assertThat(noop.needsHeroTask()).isFalse();

        channels().heal("hero");
        at("12:00").settle();
        long heroRows = Pg.await(h.pool().preparedQuery(
                "SELECT count(*) FROM outbox WHERE load_id = $1 AND action_type = 'create_hero_task'")
                .execute(Tuple.of(LOAD))).iterator().next().getLong(0);
        assertThat(heroRows).as("no new Hero task about the dead Hero task").isEqualTo(1);
        assertThat(heroTasks()).isEmpty();
    }

    @Test
    void aReplayedHeroTaskThatDiesAgainRaisesItsAlertAgain() {
        channels().failAlways("sms", 400);
        channels().failAlways("hero", 503);
        askOpenedAt0701();
        settleUntilDead(key(1, "create_hero_task"));
        assertThat(opsAlerts()).isEqualTo(1);

        assertThat(h.outbox.replay(key(1, "create_hero_task"), h.clock.instant(),
                new AuditRecord("otto", "outbox-dispatcher", "outbox.replay", key(1, "create_hero_task"), "{}"))).isPresent();
        settleUntilDead(key(1, "create_hero_task"));

        assertThat(opsAlerts()).as("the second death pages on-call too").isEqualTo(2);
        assertThat(h.alerts.list(null, 0, 10)).extracting(a -> a.outboxId()).containsOnly(key(1, "create_hero_task"));
    }

    @Test
    void aQueueDownDuringTheOutcomesPublishBacksOffAndTheRowIsDeliveredOnceWhenItIsBack() {
        AtomicBoolean down = new AtomicBoolean(true);
        h.publishOutcomesTo(refusing(messageId -> down.get()));
        askOpenedAt0701();
        h.settle();

        OutboxRow waiting = row(key(1, "send_sms"));
        assertThat(waiting.status()).as("sent, but its outcome not published: it backs off").isEqualTo(OutboxStatus.PENDING);
        assertThat(waiting.lastFailure()).contains("outcome could not be published");
        h.clock.advance(Duration.ofSeconds(5));
        h.settle();
        assertThat(row(key(1, "send_sms")).attempts()).as("still down: another attempt, another back-off").isGreaterThan(1);

        down.set(false);
        h.clock.advance(Duration.ofSeconds(40));
        h.settle();

        assertThat(row(key(1, "send_sms")).status()).isEqualTo(OutboxStatus.DISPATCHED);
        expectSmsKeys(key(1, "send_sms"));
        assertThat(logged("out:" + key(1, "send_sms") + ":delivered")).isEqualTo(1);
        assertThat(opsAlerts()).isZero();
    }

    /**
     * The SMS went out and its delivered outcome cannot be published for longer than the retry
     * budget: the row keeps its receipt and is never sent again; no failed outcome is made up
     * (the driver has the SMS), on-call is paged once, and when the queue takes outcomes again the
     * load hears it was delivered.
     */
    @Test
    void aDeliveredOutcomeThatCannotBePublishedPastTheBudgetKeepsItsReceiptPagesOnCallAndIsLoggedWhenTheQueueIsBack() {
        AtomicBoolean down = new AtomicBoolean(true);
        h.publishOutcomesTo(refusing(messageId -> down.get() && messageId.endsWith(":delivered")));
        askOpenedAt0701();
        settleFor(Harness.BUDGET.plusSeconds(60));

        OutboxRow kept = row(key(1, "send_sms"));
        assertThat(kept.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(kept.receipt()).as("the provider's receipt is kept").isNotNull();
        assertThat(kept.lastFailure()).contains("outcome could not be published");
        assertThat(logged("out:" + key(1, "send_sms") + ":failed")).as("no failure is made up").isZero();
        assertThat(heroTasks()).isEmpty();
        assertThat(h.alerts.list(null, 0, 100)).filteredOn(alert -> key(1, "send_sms").equals(alert.outboxId()))
                .singleElement().satisfies(alert -> assertThat(alert.kind()).isEqualTo("outcome_unpublished"));

        down.set(false);
        settleFor(Duration.ofSeconds(40));

        assertThat(row(key(1, "send_sms")).status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(row(key(1, "send_sms")).receipt()).isEqualTo(kept.receipt());
        assertThat(logged("out:" + key(1, "send_sms") + ":delivered")).isEqualTo(1);
        expectSmsKeys(key(1, "send_sms"));
        assertThat(channels().requests("sms", key(1, "send_sms"))).as("sent once").isOne();
    }

    @Test
    void whenNoOutcomeCanBePublishedTheBuriedRowPagesOnCall() {
        h.publishOutcomesTo(refusing(messageId -> true));
        channels().failAlways("sms", 400);
        askOpenedAt0701();
        settleUntilDead(key(1, "send_sms"));

        assertThat(logged("out:" + key(1, "send_sms") + ":failed")).isZero();
        assertThat(h.alerts.list(null, 0, 10)).extracting(a -> a.kind()).contains("outcome_unpublished");
    }

    private static void settleFor(Duration span) {
        java.time.Instant until = h.clock.instant().plus(span);
        h.settle();
        while (h.clock.instant().isBefore(until)) {
            h.clock.advance(Duration.ofSeconds(10));
            h.settle();
        }
    }

    /** The load queue as the dispatcher sees it: unreachable for every publish of a message whose id {@code refuses}. */
    private static LoadQueue refusing(Predicate<String> refuses) {
        return (LoadQueue) Proxy.newProxyInstance(LoadQueue.class.getClassLoader(), new Class<?>[]{LoadQueue.class},
                (proxy, method, args) -> {
                    boolean refused = switch (method.getName()) {
                        case "enqueue" -> refuses.test(((QueueMessage) args[0]).messageId());
                        case "enqueueAll" -> ((List<?>) args[0]).stream()
                                .anyMatch(m -> refuses.test(((QueueMessage) m).messageId()));
                        default -> false;
                    };
                    if (refused) {
                        throw new IllegalStateException("load queue unreachable");
                    }
                    try {
                        return method.invoke(h.queue, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static void settleUntilDead(String outboxId) {
        h.settle();
        for (int s = 0; s < 40 && row(outboxId).status() != OutboxStatus.DEAD; s++) {
            h.clock.advance(Duration.ofSeconds(10));
            h.settle();
        }
        assertThat(row(outboxId).status()).isEqualTo(OutboxStatus.DEAD);
    }

    @Test
    void aDispatcherThatCrashesAfterTheSendAndBeforeTheMarkCostsTheDriverNoSecondSms() throws Exception {
        askOpenedAt0701();
        h.pumpTimers();
        h.processQueue();
        Outbox crashing = Harness.crashingAt(Outbox.class, h.outbox, "markDispatched", "markDispatchedAll");
        OutboxRow sms = claimFirstSms();

        assertThatThrownBy(() -> h.dispatcherWith(crashing).dispatch(sms)).hasMessageContaining("died");
        h.settle();
        assertThat(row(key(1, "send_sms")).status()).as("claimed by the dead dispatcher").isEqualTo(OutboxStatus.PENDING);

        h.clock.advance(Harness.LEASE);
        h.settle();

        assertThat(row(key(1, "send_sms")).status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(row(key(1, "send_sms")).attempts()).isEqualTo(2);
        assertThat(channels().requests("sms", key(1, "send_sms"))).as("re-sent with the same key").isEqualTo(2);
        expectSmsKeys(key(1, "send_sms"));
        assertThat(logged("out:" + key(1, "send_sms") + ":delivered")).isEqualTo(1);
    }

    @Test
    void aDispatcherKilledAfterTheSendAndBeforeThePublishCostsTheDriverNoSecondSms() throws Exception {
        askOpenedAt0701();
        h.pumpTimers();
        h.processQueue();
        LoadQueue dying = Harness.crashingAt(LoadQueue.class, h.queue, "enqueue", "enqueueAll");
        OutboxRow sms = claimFirstSms();

        assertThatThrownBy(() -> h.dispatcherWith(h.outbox, dying).dispatch(sms)).hasMessageContaining("died");
        h.clock.advance(Harness.LEASE);
        h.settle();

        assertThat(row(key(1, "send_sms")).status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(channels().requests("sms", key(1, "send_sms"))).as("re-sent with the same key").isEqualTo(2);
        expectSmsKeys(key(1, "send_sms"));
        assertThat(logged("out:" + key(1, "send_sms") + ":delivered")).isEqualTo(1);
    }

    @Test
    void aDispatcherKilledAfterAnInternalActionAndBeforeItsMarkSchedulesOneTimer() throws Exception {
        askOpenedAt0701();
        h.pumpTimers();
        h.processQueue();
        Outbox dying = Harness.crashingAt(Outbox.class, h.outbox, "markDispatched", "markDispatchedAll");
        OutboxRow timer = h.outbox.pending(10, h.clock.instant()).stream()
                .filter(r -> r.outboxId().equals(key(1, "set_timer"))).findFirst().orElseThrow();

        assertThatThrownBy(() -> h.dispatcherWith(dying).dispatch(timer)).hasMessageContaining("died");
        assertThat(h.timers.forLoad(LOAD)).as("applied before the process died").hasSize(1);
        h.clock.advance(Harness.LEASE);
        h.settle();

        assertThat(row(key(1, "set_timer")).status()).isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(h.timers.forLoad(LOAD)).as("applied again: still one timer").hasSize(1);
        assertThat(logged("out:" + key(1, "set_timer") + ":delivered")).isEqualTo(1);
    }

    @Test
    void aClaimThatLapsedBeforeItsSendIsDroppedAndTheDriverGetsOneSms() throws Exception {
        askOpenedAt0701();
        h.pumpTimers();
        h.processQueue();
        OutboxRow stalled = claimFirstSms();
        // the first dispatcher stalls (a long pause) past its lease; a second one takes the row and sends it
        h.clock.advance(Harness.LEASE.plusSeconds(1));
        h.settle();
        assertThat(row(key(1, "send_sms")).status()).isEqualTo(OutboxStatus.DISPATCHED);

        h.dispatcherWith(h.outbox).dispatch(stalled);

        assertThat(channels().requests("sms", key(1, "send_sms"))).as("the stalled claim sent nothing").isEqualTo(1);
        expectSmsKeys(key(1, "send_sms"));
        assertThat(logged("out:" + key(1, "send_sms") + ":delivered")).isEqualTo(1);
    }

    @Test
    void aFreshClaimGoesStraightToItsSendWithoutRecheckingTheDatabase() throws Exception {
        askOpenedAt0701();
        h.pumpTimers();
        h.processQueue();
        java.util.concurrent.atomic.AtomicInteger checks = new java.util.concurrent.atomic.AtomicInteger();
        Outbox counting = (Outbox) java.lang.reflect.Proxy.newProxyInstance(Outbox.class.getClassLoader(),
                new Class<?>[]{Outbox.class}, (proxy, m, args) -> {
                    if (m.getName().equals("isClaimHeld")) {
                        checks.incrementAndGet();
                    }
                    try {
                        return m.invoke(h.outbox, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        OutboxRow fresh = claimFirstSms();

        h.dispatcherWith(counting).dispatch(fresh);

        assertThat(checks).hasValue(0);
        assertThat(row(key(1, "send_sms")).status()).isEqualTo(OutboxStatus.DISPATCHED);
        expectSmsKeys(key(1, "send_sms"));
    }

    @Test
    void aSendSlowerThanTheLeaseReachesTheDriverOnceAndBothOutcomesAreLogged() throws Exception {
        askOpenedAt0701();
        h.pumpTimers();
        h.processQueue();
        CountDownLatch release = channels().hold("sms", 200);
        OutboxRow first = claimFirstSms();
        CompletableFuture<Void> slow = CompletableFuture.runAsync(() -> {
            try {
                h.dispatcher.dispatch(first);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        while (channels().requests("sms", key(1, "send_sms")) == 0) {
            Thread.onSpinWait();
        }

        // the lease ends while the first send waits; a second dispatcher takes the row over
        // and its attempt meets a transient failure that the budget no longer covers
        h.clock.advance(Harness.LEASE.plus(Harness.BUDGET));
        channels().failAlways("sms", 503);
        OutboxRow second = claimFirstSms();
        h.dispatcher.dispatch(second);
        release.countDown();
        slow.get();
        h.settle();

        expectSmsKeys(key(1, "send_sms"));
        assertThat(channels().requests("sms", key(1, "send_sms"))).isEqualTo(2);
        assertThat(logged("out:" + key(1, "send_sms") + ":delivered")).isEqualTo(1);
        assertThat(logged("out:" + key(1, "send_sms") + ":failed")).isEqualTo(1);
        assertThat(row(key(1, "send_sms")).status()).as("the late mark changed nothing").isEqualTo(OutboxStatus.DEAD);
        assertThat(heroTasks()).as("ADR: at worst one extra Hero task about a message that arrived").hasSizeLessThanOrEqualTo(1);
    }
}
