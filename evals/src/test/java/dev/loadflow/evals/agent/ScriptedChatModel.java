package dev.loadflow.evals.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.loadflow.model.json.JsonReader;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An OpenAI-compatible chat completions server on localhost whose answers a test scripts: each
 * request is read as the agent sends it (the load's state and the event, any refused answer
 * before), and the script returns tool calls, words and how long to take. No network, no model.
 */
public final class ScriptedChatModel implements AutoCloseable {

    /** What the agent asked: the event and load of its user message, and how many answers of it were refused before. */
    public record Request(JsonNode event, JsonNode load, int refusedBefore, JsonNode body) {

        public String eventType() {
            return event.path("type").asText();
        }
    }

    /** A scripted answer. */
    public record Answer(List<Call> calls, String text, Duration delay) {

        public static Answer of(String text, Call... calls) {
            return new Answer(List.of(calls), text, Duration.ZERO);
        }

        public Answer after(Duration delay) {
            return new Answer(calls, text, delay);
        }
    }

    public record Call(String name, String arguments) {
    }

    private final HttpServer server;
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger finished = new AtomicInteger();
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    private volatile Function<Request, Answer> script;

    public ScriptedChatModel(Function<Request, Answer> script) throws IOException {
        this.script = script;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/v1/chat/completions", this::answer);
        server.start();
    }

    /** The base URL the agent is pointed at ({@code loadflow.policy.llm.base-url}). */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    public void script(Function<Request, Answer> script) {
        this.script = script;
    }

    public int calls() {
        return calls.get();
    }

    /** The calls whose answer was written or whose caller had stopped waiting for it. */
    public int finished() {
        return finished.get();
    }

    public List<Request> requests() {
        return List.copyOf(requests);
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            JsonNode body = JsonReader.MAPPER.readTree(exchange.getRequestBody());
            calls.incrementAndGet();
            JsonNode user = null;
            int refused = 0;
            for (JsonNode message : body.path("messages")) {
                if (message.path("role").asText().equals("user")) {
                    if (user == null) {
                        user = JsonReader.MAPPER.readTree(message.path("content").asText());
                    } else {
                        refused++;
                    }
                }
            }
            Request request = new Request(user.path("event"), user.path("load"), refused, body);
            requests.add(request);
            Answer answer = script.apply(request);
            if (!answer.delay().isZero()) {
                Thread.sleep(answer.delay());
            }
            byte[] reply = completion(answer).toString().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, reply.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(reply);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException gone) {
            // the agent stopped waiting (its timeout): nobody reads this answer
        } finally {
            finished.incrementAndGet();
        }
    }

    private static ObjectNode completion(Answer answer) {
        ObjectNode json = JsonReader.MAPPER.createObjectNode().put("id", "chatcmpl-scripted").put("object", "chat.completion")
                .put("created", 0).put("model", "scripted");
        ObjectNode message = json.putArray("choices").addObject().put("index", 0)
                .put("finish_reason", answer.calls().isEmpty() ? "stop" : "tool_calls")
                .putObject("message").put("role", "assistant");
        if (answer.text() == null) {
            message.putNull("content");
        } else {
            message.put("content", answer.text());
        }
        if (!answer.calls().isEmpty()) {
            ArrayNode toolCalls = message.putArray("tool_calls");
            int i = 0;
            for (Call call : answer.calls()) {
                toolCalls.addObject().put("id", "call_" + i++).put("type", "function")
                        .putObject("function").put("name", call.name()).put("arguments", call.arguments());
            }
        }
        json.putObject("usage").put("prompt_tokens", 420).put("completion_tokens", 35).put("total_tokens", 455);
        return json;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
