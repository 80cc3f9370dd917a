package dev.loadflow.dispatcher.internal;

import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.model.json.ActionCodec;
import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.store.stage.PgLoadStages;
import dev.loadflow.store.timer.PgTimerStore;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.store.timer.TimerStatus;
import dev.loadflow.store.timer.TimerStore;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static org.assertj.core.api.Assertions.assertThat;

/** set_timer and cancel_timer rows sent at the same time share one statement; each row learns its own result. */
class InternalActionsTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("internal_actions");

    private static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");

    private final FakeClock clock = FakeClock.at(T0);
    /** The group sizes each timer statement was given; -1 for a single-timer call. */
    private final List<Integer> writes = new CopyOnWriteArrayList<>();
    private TimerStore store;

    @BeforeEach
    void reset() {
        PG.database().truncateAll();
        writes.clear();
        store = new PgTimerStore(PG.pool(), clock, Duration.ofSeconds(30), PG.wakeups());
    }

    @Test
    void timerRowsSentTogetherAreWrittenTogetherAndEachLearnsItsOwnResult() throws Exception {
        String load = newLoadId();
        // the first write holds the database for a moment: the other rows arrive meanwhile and go as one group
        InternalActions actions = new InternalActions(recording(store, 200, false), new PgLoadStages(PG.pool()), clock);
        List<OutboxRow> rows = new ArrayList<>();
        for (int attempt = 1; attempt <= 12; attempt++) {
            rows.add(setTimer(load, attempt));
        }
        rows.add(setTimer(load, 5)); // the same row again, as a redelivery would

        List<SendResult> results = applyAtOnce(actions, rows);

        assertThat(store.forLoad(load)).hasSize(12).allSatisfy(t -> assertThat(t.status()).isEqualTo(TimerStatus.SCHEDULED));
        assertThat(results).allSatisfy(r -> assertThat(r).isInstanceOf(SendResult.Delivered.class));
        assertThat(results).filteredOn(r -> ((SendResult.Delivered) r).receipt().startsWith("scheduled")).hasSize(12);
        assertThat(results).filteredOn(r -> ((SendResult.Delivered) r).receipt().startsWith("already scheduled")).hasSize(1);
        assertThat(writes).as("13 rows, far fewer statements").hasSizeLessThanOrEqualTo(3).doesNotContain(-1);
    }

    @Test
    void whenAGroupsStatementFailsEachOfItsRowsIsWrittenAlone() throws Exception {
        String load = newLoadId();
        store.schedule(Timer.schedule(timerId(load, 1), T0.plusSeconds(600), null));
        InternalActions actions = new InternalActions(recording(store, 0, true), new PgLoadStages(PG.pool()), clock);

        List<SendResult> results = applyAtOnce(actions, List.of(cancelTimer(load, 1), cancelTimer(load, 2), setTimer(load, 3)));

        assertThat(results).allSatisfy(r -> assertThat(r).isInstanceOf(SendResult.Delivered.class));
        assertThat(store.find(timerId(load, 1)).orElseThrow().status()).isEqualTo(TimerStatus.CANCELLED);
        assertThat(store.find(timerId(load, 2)).orElseThrow().status()).as("a tombstone").isEqualTo(TimerStatus.CANCELLED);
        assertThat(store.find(timerId(load, 3)).orElseThrow().status()).isEqualTo(TimerStatus.SCHEDULED);
        assertThat(writes).as("every row went alone after its group failed").contains(-1);
    }

    private static List<SendResult> applyAtOnce(InternalActions actions, List<OutboxRow> rows) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(rows.size());
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<SendResult>> futures = new ArrayList<>();
            for (OutboxRow row : rows) {
                futures.add(pool.submit(() -> {
                    go.await();
                    return switch (row.action()) {
                        case Action.SetTimer set -> actions.setTimer(set, row.correlationId(), row.traceparent());
                        case Action.CancelTimer cancel -> actions.cancelTimer(cancel);
                        default -> throw new IllegalArgumentException("not a timer row: " + row.outboxId());
                    };
                }));
            }
            go.countDown();
            List<SendResult> results = new ArrayList<>();
            for (Future<SendResult> future : futures) {
                results.add(future.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The store, recording each write; the first group write sleeps {@code holdMillis}; {@code failGroups} makes group writes throw. */
    private TimerStore recording(TimerStore target, long holdMillis, boolean failGroups) {
        return (TimerStore) Proxy.newProxyInstance(TimerStore.class.getClassLoader(), new Class<?>[]{TimerStore.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "scheduleAll", "cancelAll" -> {
                            if (failGroups) {
                                throw new IllegalStateException("simulated: the group's statement failed");
                            }
                            if (writes.isEmpty() && holdMillis > 0) {
                                writes.add(((List<?>) args[0]).size());
                                Thread.sleep(holdMillis);
                            } else {
                                writes.add(((List<?>) args[0]).size());
                            }
                        }
                        case "schedule", "cancel" -> writes.add(-1);
                        default -> { }
                    }
                    return method.invoke(target, args);
                });
    }

    private static TimerId timerId(String load, int attempt) {
        return TimerId.of(load, AskId.of("eta_request", "ping_0700"), attempt);
    }

    private static OutboxRow setTimer(String load, int attempt) {
        return row(load, "set_timer", new Action.SetTimer(timerId(load, attempt), T0.plusSeconds(600)));
    }

    private static OutboxRow cancelTimer(String load, int attempt) {
        return row(load, "cancel_timer", new Action.CancelTimer(timerId(load, attempt)));
    }

    private static OutboxRow row(String load, String type, Action action) {
        return new OutboxRow(load + "/" + type + "/" + action.hashCode(), load, type, Channel.INTERNAL,
                ActionCodec.encode(action).toString(), OutboxStatus.PENDING, 1, T0, T0, null, null, null, null,
                null, null, "c-" + load, null, T0);
    }
}
