package dev.loadflow.evals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.evals.agent.ScriptedChatModel.Answer;
import dev.loadflow.evals.agent.ScriptedChatModel.Call;
import dev.loadflow.evals.agent.ScriptedChatModel.Request;
import dev.loadflow.model.json.JsonReader;

import java.util.ArrayList;
import java.util.List;

/**
 * A scripted model that answers as a model following client A's SOP would: the tool calls the
 * SOP's decisions translate to, with the SOP's texts. Its answers must make the same actions as
 * the SOP itself: that is what the guard rails' mapping from tools to action keys promises.
 */
final class SopLikeModel {

    private SopLikeModel() {
    }

    static Answer answer(Request request) {
        JsonNode load = request.load();
        JsonNode payload = request.event().path("payload");
        String loadId = load.path("loadId").asText();
        String driver = load.path("driverPhone").isTextual() ? load.path("driverPhone").asText() : null;
        return switch (request.eventType()) {
            case "LoadAssigned" -> Answer.of("assigned: nothing to do yet");
            case "LocationPing" -> {
                if (!payload.path("risk").asText().equals("high")) {
                    yield Answer.of(payload.path("risk").asText() + "-risk ping: nothing to do");
                }
                if (openEta(load) != null) {
                    yield Answer.of("an ETA request is already open");
                }
                if (driver == null) {
                    yield Answer.of("no driver to ask", heroTask("High-risk ping on load " + loadId + " with no driver assigned",
                            "A high-risk location ping arrived before LoadAssigned; nobody can be asked for an ETA."));
                }
                yield Answer.of("high-risk ping: asking the driver for an ETA", sms(driver, loadId, 1), timer());
            }
            case "TimerFired" -> {
                JsonNode ask = ask(load, payload.path("askId").asText());
                int step = ask.path("step").asInt();
                if (step < Harness.CLIENT_A.maxAttempts()) {
                    yield Answer.of("no answer to attempt " + step + ": asking again", sms(driver, loadId, step + 1), timer());
                }
                yield Answer.of("no answer after " + step + " attempts: a Hero calls the driver",
                        heroTask("Driver not answering on load " + loadId, step + " ETA requests to " + driver + " since "
                                + ask.path("openedAt").asText() + " went unanswered. Please call the driver."));
            }
            case "InboundSms" -> {
                List<Call> calls = new ArrayList<>();
                for (JsonNode ask : load.path("openAsks")) {
                    String askId = ask.path("askId").asText();
                    if (ask.path("currentTimer").isTextual()) {
                        calls.add(new Call("cancel_timer", json("ask_id", askId)));
                    }
                    calls.add(new Call("post_hero_slack", JsonReader.MAPPER.createObjectNode().put("ask_id", askId)
                            .put("text", "Load " + loadId + ": driver answered " + askId.split(":")[1] + ": \""
                                    + payload.path("text").asText() + "\"").toString()));
                }
                yield new Answer(calls, "the driver answered", java.time.Duration.ZERO);
            }
            default -> Answer.of("nothing to do");
        };
    }

    private static JsonNode openEta(JsonNode load) {
        for (JsonNode ask : load.path("openAsks")) {
            if (ask.path("askId").asText().startsWith("ask:eta_request:")) {
                return ask;
            }
        }
        return null;
    }

    private static JsonNode ask(JsonNode load, String askId) {
        for (JsonNode ask : load.path("openAsks")) {
            if (ask.path("askId").asText().equals(askId)) {
                return ask;
            }
        }
        throw new IllegalStateException("no open ask " + askId);
    }

    private static Call sms(String driver, String loadId, int attempt) {
        return new Call("send_sms", JsonReader.MAPPER.createObjectNode().put("to", driver)
                .put("text", Harness.CLIENT_A.etaRequestText().replace("{loadId}", loadId)
                        .replace("{attempt}", Integer.toString(attempt))).toString());
    }

    private static Call timer() {
        return new Call("set_timer", "{\"after_seconds\": " + Harness.CLIENT_A.retryAfter().toSeconds() + "}");
    }

    private static Call heroTask(String title, String body) {
        return new Call("create_hero_task", JsonReader.MAPPER.createObjectNode().put("title", title).put("body", body)
                .put("urgency", "urgent").toString());
    }

    private static String json(String field, String value) {
        return JsonReader.MAPPER.createObjectNode().put(field, value).toString();
    }
}
