package dev.loadflow.worker.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.model.json.LogCodec;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.model.projection.OpenAsk;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operator's view of one load: projected state, version and the whole log. A caller who only
 * reads gets it with every phone number masked, as every answer
 * ({@link dev.loadflow.service.security.MaskedForReaders}).
 */
@RegisterForReflection
record LoadView(String loadId, long version, State state, List<Entry> log) {

    @RegisterForReflection
    record State(String clientId, String driverPhone, String stage, String assignedBy, List<Ask> openAsks, List<String> closedAsks,
                 Map<String, List<String>> outcomes) {
    }

    @RegisterForReflection
    record Ask(String askId, int step, String currentTimer, Instant openedAt, Instant stepTakenAt) {
        static Ask of(OpenAsk ask) {
            return new Ask(ask.askId().toString(), ask.step(),
                    ask.currentTimer() == null ? null : ask.currentTimer().toString(), ask.openedAt(), ask.stepTakenAt());
        }
    }

    @RegisterForReflection
    record Entry(long seq, Instant recordedAt, String entryId, String kind, String type, JsonNode body) {
        static Entry of(RecordedEntry recorded) {
            return new Entry(recorded.seq(), recorded.recordedAt(), recorded.entry().entryId(), recorded.entry().kind(),
                    recorded.entry().typeName(), JsonReader.parse(LogCodec.encode(recorded.entry())).node());
        }
    }

    static LoadView of(LoadLog log) {
        LoadState state = LoadState.project(log);
        Map<String, List<String>> outcomes = new LinkedHashMap<>();
        state.outcomes().forEach((outboxId, statuses) -> outcomes.put(outboxId, statuses.stream().map(s -> s.wire()).toList()));
        return new LoadView(log.loadId(), log.version(),
                new State(state.clientId(), state.driverPhone(), state.stage(), state.assignedBy(),
                        state.openAsks().values().stream().map(Ask::of).toList(), List.copyOf(state.closedAsks()), outcomes),
                log.entries().stream().map(Entry::of).toList());
    }
}
