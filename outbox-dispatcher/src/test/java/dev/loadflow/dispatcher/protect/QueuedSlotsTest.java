package dev.loadflow.dispatcher.protect;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.SettableLimit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/** Rows wait for their channel's slots in line: each freed slot goes to the row first in line, a grown limit lets more go. */
class QueuedSlotsTest {

    private final SettableLimit limit = SettableLimit.startingAt(1);
    private final SimpleLimiter<Void> limiter = SimpleLimiter.newBuilder().limit(limit).build();
    private final QueuedSlots slots = new QueuedSlots(limiter, Duration.ofSeconds(20));
    private final ConcurrentLinkedQueue<String> served = new ConcurrentLinkedQueue<>();

    @Test
    void eachFreedSlotGoesToTheRowFirstInLine() {
        Limiter.Listener held = slots.acquire(null).orElseThrow();
        List<CompletableFuture<Limiter.Listener>> rows = inLine("a", "b", "c");

        held.onSuccess();
        await().until(() -> served.size() == 1);
        assertThat(served).containsExactly("a");
        assertThat(slots.waiting()).as("the others still wait: one slot freed, one row woke and took it").isEqualTo(2);

        rows.get(0).join().onIgnore();
        await().until(() -> served.size() == 2);
        rows.get(1).join().onDropped();
        await().until(() -> served.size() == 3);
        assertThat(served).containsExactly("a", "b", "c");
        assertThat(slots.waiting()).isZero();
    }

    @Test
    void aLimitThatGrewLetsAsManyMoreGoAsItHasRoomFor() {
        Limiter.Listener held = slots.acquire(null).orElseThrow();
        inLine("a", "b", "c", "d");

        limit.setLimit(3);
        held.onSuccess();
        await().until(() -> served.size() == 3);
        assertThat(served).as("the first three in line, each woken by the one before it").containsExactlyInAnyOrder("a", "b", "c");
        assertThat(limiter.getInflight()).isEqualTo(3);
        assertThat(slots.waiting()).as("the fourth waits for a slot under the limit of 3").isEqualTo(1);
    }

    @Test
    void aRowThatWaitedTooLongIsGivenBackWithoutASlotAndTheNextKeepsItsTurn() {
        QueuedSlots briefly = new QueuedSlots(limiter, Duration.ofMillis(200));
        Limiter.Listener held = briefly.acquire(null).orElseThrow();

        assertThat(briefly.acquire(null)).as("no slot freed within the wait").isEmpty();
        assertThat(briefly.waiting()).isZero();
        held.onSuccess();
        assertThat(briefly.acquire(null)).as("a freed slot, taken at once with no one in line").isPresent();
    }

    /** Rows that wait for a slot, in this order (each in line before the next comes); each records its name once served. */
    private List<CompletableFuture<Limiter.Listener>> inLine(String... names) {
        List<CompletableFuture<Limiter.Listener>> rows = new ArrayList<>();
        for (String name : names) {
            int before = slots.waiting();
            CompletableFuture<Limiter.Listener> row = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                Optional<Limiter.Listener> slot = slots.acquire(null);
                served.add(name);
                row.complete(slot.orElseThrow());
            });
            await().until(() -> slots.waiting() == before + 1);
            rows.add(row);
        }
        return rows;
    }
}
