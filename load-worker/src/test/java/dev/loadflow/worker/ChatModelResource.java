package dev.loadflow.worker;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.util.Map;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

/**
 * An OpenAI-compatible chat completions endpoint (WireMock) for the worker under test: a
 * high-risk ping gets an ETA request by tool calls, anything else an answer without tools.
 */
public class ChatModelResource implements QuarkusTestResourceLifecycleManager {

    static volatile WireMockServer server;

    private static String completion(String message) {
        return """
                {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "wired-1",
                 "choices": [{"index": 0, "finish_reason": "tool_calls", "message": %s}],
                 "usage": {"prompt_tokens": 500, "completion_tokens": 40, "total_tokens": 540}}""".formatted(message);
    }

    @Override
    public Map<String, String> start() {
        server = new WireMockServer(options().dynamicPort());
        server.start();
        server.stubFor(post(urlEqualTo("/v1/chat/completions")).atPriority(5).willReturn(aResponse()
                .withHeader("Content-Type", "application/json")
                .withBody(completion("{\"role\": \"assistant\", \"content\": \"nothing to do\"}"))));
        server.stubFor(post(urlEqualTo("/v1/chat/completions")).atPriority(1)
                .withRequestBody(containing("LocationPing")).withRequestBody(containing("\\\"risk\\\" : \\\"high\\\""))
                .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(completion("""
                        {"role": "assistant", "content": "high-risk ping: asking the driver", "tool_calls": [
                          {"id": "c1", "type": "function", "function": {"name": "send_sms",
                            "arguments": "{\\"to\\": \\"+15550100\\", \\"text\\": \\"Dispatch here: what is your ETA?\\"}"}},
                          {"id": "c2", "type": "function", "function": {"name": "set_timer",
                            "arguments": "{\\"after_seconds\\": 1800}"}}]}"""))));
        return Map.of("loadflow.policy.kind", "llm",
                "loadflow.policy.llm.base-url", server.baseUrl() + "/v1",
                "loadflow.policy.llm.model", "wired-1",
                "loadflow.policy.llm.api-key", "test-api-key",
                "loadflow.policy.llm.timeout", "PT5S");
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop();
        }
    }
}
