package dev.loadflow.worker.ingest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.model.json.LogCodec;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.model.projection.OpenAsk;

/** The operator's view of one load: projected state, version and the whole log, as JSON. */
final class LoadView {

    private LoadView() {
    }

    static ObjectNode of(LoadLog log) {
        LoadState state = LoadState.project(log);
        ObjectNode json = JsonReader.MAPPER.createObjectNode()
                .put("loadId", log.loadId())
                .put("version", log.version());
        ObjectNode projected = json.putObject("state")
                .put("clientId", state.clientId())
                .put("driverPhone", state.driverPhone())
                .put("stage", state.stage());
        ArrayNode open = projected.putArray("openAsks");
        for (OpenAsk ask : state.openAsks().values()) {
            open.addObject()
                    .put("askId", ask.askId().toString())
                    .put("step", ask.step())
                    .put("currentTimer", ask.currentTimer() == null ? null : ask.currentTimer().toString())
                    .put("openedAt", ask.openedAt().toString())
                    .put("stepTakenAt", ask.stepTakenAt().toString());
        }
        ArrayNode closed = projected.putArray("closedAsks");
        state.closedAsks().forEach(closed::add);
        ObjectNode outcomes = projected.putObject("outcomes");
        state.outcomes().forEach((outboxId, statuses) -> {
            ArrayNode list = outcomes.putArray(outboxId);
            statuses.forEach(s -> list.add(s.wire()));
        });
        ArrayNode entries = json.putArray("log");
        for (RecordedEntry recorded : log.entries()) {
            ObjectNode entry = entries.addObject()
                    .put("seq", recorded.seq())
                    .put("recordedAt", recorded.recordedAt().toString())
                    .put("entryId", recorded.entry().entryId())
                    .put("kind", recorded.entry().kind())
                    .put("type", recorded.entry().typeName());
            entry.set("body", JsonReader.parse(LogCodec.encode(recorded.entry())).node());
        }
        return json;
    }
}
