package dev.loadflow.store.queue;

import dev.loadflow.model.time.FakeClock;
import dev.loadflow.store.queue.UnrunReceives.Key;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code queue_unrun_receive}: what an SQS queue takes off a message's receive count, on PostgreSQL. */
public class PgUnrunReceivesTest {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("unrun_receives");

    private static final Instant T0 = Instant.parse("2026-12-03T07:00:00Z");

    private final FakeClock clock = FakeClock.at(T0);
    private PgUnrunReceives unrun;

    @BeforeEach
    void setUp() {
        PG.database().truncateAll();
        unrun = new PgUnrunReceives(PG.pool(), clock);
    }

    @Test
    void eachReceiveThatDidNotRunAddsOneToItsMessageOnly() {
        Key m2 = new Key("L-1", "m2");
        Key m3 = new Key("L-1", "m3");
        Key sameIdOtherLoad = new Key("L-2", "m2");

        unrun.add(List.of(m2, m3));
        unrun.add(List.of(m2));
        unrun.add(List.of(m3, m3));

        assertThat(unrun.of(List.of(m2, m3, sameIdOtherLoad, new Key("L-1", "m9"))))
                .containsOnly(entry(m2, 2), entry(m3, 3));
    }

    @Test
    void aMessageThatLeftTheQueueIsForgottenAndOthersStay() {
        Key m2 = new Key("L-1", "m2");
        Key m3 = new Key("L-1", "m3");
        unrun.add(List.of(m2, m3));

        unrun.forget(List.of(m2, new Key("L-1", "never-recorded")));

        assertThat(unrun.of(List.of(m2, m3))).containsOnly(entry(m3, 1));
        assertThat(PG.database().count("SELECT count(*) FROM queue_unrun_receive")).isEqualTo(1);
    }

    @Test
    void aRowOlderThanTheQueuesRetentionIsSweptWhenRowsAreNextAdded() {
        Key gone = new Key("L-1", "expired-in-sqs");
        Key waiting = new Key("L-1", "still-waiting");
        unrun.add(List.of(gone, waiting));
        clock.advance(Duration.ofDays(10));
        unrun.add(List.of(waiting));

        clock.advance(Duration.ofDays(5));
        unrun.add(List.of(new Key("L-2", "m1")));

        assertThat(unrun.of(List.of(gone, waiting))).as("the row touched 5 days ago stays, the one of 15 days goes")
                .containsOnly(entry(waiting, 2));
    }

    @Test
    void concurrentAddsForTheSameMessagesLoseNoReceive() throws Exception {
        List<Key> run = IntStream.range(0, 9).mapToObj(i -> new Key("L-busy", "m" + i)).toList();
        try (ExecutorService consumers = Executors.newFixedThreadPool(4)) {
            CompletableFuture<?>[] adds = IntStream.range(0, 40)
                    .mapToObj(i -> CompletableFuture.runAsync(() -> unrun.add(i % 2 == 0 ? run : run.reversed()), consumers))
                    .toArray(CompletableFuture[]::new);
            CompletableFuture.allOf(adds).get();
        }

        assertThat(unrun.of(run).values()).hasSize(9).containsOnly(40);
    }

    private static Map.Entry<Key, Integer> entry(Key key, int receives) {
        return Map.entry(key, receives);
    }
}
