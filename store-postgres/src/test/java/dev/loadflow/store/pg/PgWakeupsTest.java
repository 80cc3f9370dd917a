package dev.loadflow.store.pg;

import dev.loadflow.testing.PgBackend;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/** NOTIFY after the commit: heard by the listeners, one in flight per channel, bursts folded. */
class PgWakeupsTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("wakeups");

    private Vertx vertx;
    private Pool onePool;
    private WakeupSignal queueSignal;

    @BeforeEach
    void listening() {
        vertx = Vertx.vertx();
        onePool = PG.database().pool(vertx, 1);
        queueSignal = PG.notifications().signal(PgNotifications.QUEUE);
        // the subscriber fires every signal once it has subscribed: from then on nothing is missed
        await().atMost(Duration.ofSeconds(10)).until(() -> queueSignal.generation() > 0);
    }

    @AfterEach
    void close() {
        onePool.close().toCompletionStage().toCompletableFuture().join();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void aWakeReachesTheChannelsListeners() {
        PgWakeups wakeups = new PgWakeups(onePool);
        long seen = queueSignal.generation();

        wakeups.wake(PgNotifications.QUEUE);

        assertThat(queueSignal.awaitAfter(seen, Duration.ofSeconds(10))).as("the listener was woken").isTrue();
        assertThat(wakeups.sent()).isEqualTo(1);
    }

    @Test
    void aNewTimerTellsThePumpsWhenItIsDueAndOneDuePastTheirNextLookTellsThemNothing() {
        java.time.Clock clock = java.time.Clock.systemUTC();
        PgWakeups wakeups = new PgWakeups(onePool);
        var timers = new dev.loadflow.store.timer.PgTimerStore(PG.pool(), clock, Duration.ofSeconds(30), wakeups,
                Duration.ofSeconds(30));
        WakeupSignal timerSignal = PG.notifications().signal(PgNotifications.TIMERS);
        String load = dev.loadflow.testing.Fixtures.newLoadId();
        var ask = dev.loadflow.model.id.AskId.of("eta_request", "ping_0700");

        timers.schedule(dev.loadflow.store.timer.Timer.schedule(dev.loadflow.model.id.TimerId.of(load, ask, 1),
                clock.instant().plus(Duration.ofMinutes(30)), "c-1"));
        assertThat(wakeups.sent()).as("due after the pumps' next look: no NOTIFY").isZero();

        long seen = timerSignal.generation();
        java.time.Instant soon = clock.instant().plusSeconds(5);
        timers.schedule(dev.loadflow.store.timer.Timer.schedule(dev.loadflow.model.id.TimerId.of(load, ask, 2), soon, "c-1"));

        assertThat(timerSignal.awaitAfter(seen, Duration.ofSeconds(10))).isTrue();
        assertThat(timerSignal.earliestDueSince(seen)).as("the NOTIFY says when it is due").isEqualTo(soon.toEpochMilli());
        assertThat(wakeups.sent()).isOne();
    }

    @Test
    void wakesWhileANotifyIsInFlightAreFoldedIntoOneMoreSentAfterIt() throws Exception {
        PgWakeups wakeups = new PgWakeups(onePool);
        // hold the pool's only connection: the first NOTIFY stays in flight, waiting for it
        SqlConnection held = onePool.getConnection().toCompletionStage().toCompletableFuture().join();
        long seen = queueSignal.generation();

        wakeups.wake(PgNotifications.QUEUE);
        wakeups.wake(PgNotifications.QUEUE);
        wakeups.wake(PgNotifications.QUEUE);
        assertThat(wakeups.sent()).as("one in flight; the two later wakes wait behind it as one").isEqualTo(1);
        held.close().toCompletionStage().toCompletableFuture().join();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(wakeups.sent()).isEqualTo(2);
            assertThat(queueSignal.generation()).as("both NOTIFYs heard").isEqualTo(seen + 2);
        });
        Thread.sleep(300);
        assertThat(queueSignal.generation()).as("and no third").isEqualTo(seen + 2);
    }

    @Test
    void channelsAreIndependent() {
        PgWakeups wakeups = new PgWakeups(onePool);
        WakeupSignal outboxSignal = PG.notifications().signal(PgNotifications.OUTBOX);
        long seenOutbox = outboxSignal.generation();
        long seenQueue = queueSignal.generation();

        wakeups.wake(PgNotifications.OUTBOX);
        wakeups.wake(PgNotifications.QUEUE);

        assertThat(outboxSignal.awaitAfter(seenOutbox, Duration.ofSeconds(10))).isTrue();
        assertThat(queueSignal.awaitAfter(seenQueue, Duration.ofSeconds(10))).isTrue();
        assertThat(wakeups.sent()).as("a NOTIFY in flight on one channel does not hold back the other").isEqualTo(2);
    }
}
