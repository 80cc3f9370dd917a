package dev.loadflow.model.projection;

import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.OutcomeStatus;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark, not a test (excluded from the suite): what one run pays to fold a new entry into
 * the projection of a load with a long history. Run:
 * <pre>
 * ./mvnw -B -pl shared-model test -Dtest=LoadStateBenchmark -Dloadflow.excluded.groups=none
 * </pre>
 */
@Tag("benchmark")
class LoadStateBenchmark {

    private static final Instant T = Instant.parse("2026-11-30T07:00:00Z");

    @Test
    void foldingOneEntryIntoALongHistory() throws IOException {
        StringBuilder table = new StringBuilder(String.format("%n== LoadState.plus of one entry ==%n%12s %14s%n",
                "history", "µs per plus"));
        for (int history : new int[]{100, 1_000, 10_000, 100_000}) {
            List<RecordedEntry> entries = new ArrayList<>();
            for (int i = 0; i < history; i++) {
                entries.add(entry(i + 1, "e" + i, i % 2 == 0 ? new EventPayload.LocationPing(Risk.LOW, 41.9, -87.6)
                        : new EventPayload.ActionOutcome("L/o" + i, "send_sms", OutcomeStatus.DELIVERED, "r", null, false)));
            }
            LoadState state = LoadState.project(new LoadLog("L", 0, List.of())).plus(entries);
            List<RecordedEntry> next = List.of(entry(history + 1, "next", new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6)));
            for (int i = 0; i < 5_000; i++) {
                state.plus(next); // JIT warm-up
            }
            int reps = 5_000;
            long start = System.nanoTime();
            LoadState last = state;
            for (int i = 0; i < reps; i++) {
                last = state.plus(next);
            }
            double micros = (System.nanoTime() - start) / 1e3 / reps;
            assertThat(last.hasProcessed("next")).isTrue();
            assertThat(state.hasProcessed("next")).as("the state it started from is left as it was").isFalse();
            table.append(String.format("%12d %14.2f%n", history, micros));
        }
        System.out.println(table);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "benchmark-load-state.txt"), table);
    }

    private static RecordedEntry entry(long seq, String eventId, EventPayload payload) {
        return new RecordedEntry(seq, T, new InboundEvent(eventId, "L", T, T, "c-L", null, payload));
    }
}
