package dev.loadflow.store.processed;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@link ProcessedEvents} contract (ADR 0006): a duplicate delivery is a no-op. */
public abstract class ProcessedEventsContract {

    protected static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");

    private ProcessedEvents processed;

    protected abstract ProcessedEvents processedEvents();

    protected abstract void reset();

    @BeforeEach
    final void setUp() {
        reset();
        processed = processedEvents();
    }

    @Test
    final void theFirstMarkRecordsAndADuplicateIsANoOp() {
        assertThat(processed.markProcessed("crm-webhook", "stage:481207:3", T0)).isTrue();
        assertThat(processed.markProcessed("crm-webhook", "stage:481207:3", T0.plusSeconds(1))).isFalse();

        assertThat(processed.isProcessed("crm-webhook", "stage:481207:3")).isTrue();
        assertThat(processed.isProcessed("billing-webhook", "stage:481207:3")).isFalse();
    }

    @Test
    final void handledByTellsWhichSubscribersAlreadySucceeded() {
        processed.markProcessed("crm-webhook", "evt-1", T0);
        processed.markProcessed("billing-webhook", "evt-2", T0);

        assertThat(processed.handledBy("evt-1", List.of("crm-webhook", "billing-webhook", "tms-webhook")))
                .containsExactly("crm-webhook");
        assertThat(processed.handledBy("evt-3", List.of("crm-webhook"))).isEmpty();
    }

    @Test
    final void eightConcurrentMarksOfOneDeliveryRecordItOnce() throws Exception {
        for (int round = 0; round < 20; round++) {
            String eventId = "evt-" + round;
            CyclicBarrier start = new CyclicBarrier(8);
            List<Callable<Boolean>> markers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                markers.add(() -> {
                    start.await();
                    return processed.markProcessed("crm-webhook", eventId, T0);
                });
            }
            ExecutorService pool = Executors.newFixedThreadPool(8);
            int firsts = 0;
            try {
                for (Future<Boolean> done : pool.invokeAll(markers)) {
                    firsts += done.get() ? 1 : 0;
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(firsts).as("first marks of %s", eventId).isEqualTo(1);
            assertThat(processed.handledBy(eventId, Set.of("crm-webhook"))).containsExactly("crm-webhook");
        }
    }
}
