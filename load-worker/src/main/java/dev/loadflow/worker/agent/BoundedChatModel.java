package dev.loadflow.worker.agent;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;

import java.util.concurrent.Semaphore;

/**
 * A model with at most {@code maxConcurrency} calls in flight from this worker
 * ({@code loadflow.policy.llm.max-concurrency}): a provider's concurrency or rate limit is met
 * here, where runs wait their turn, rather than as refused calls that fall back to the SOP.
 */
final class BoundedChatModel implements ChatModel {

    private final ChatModel model;
    private final Semaphore calls;

    BoundedChatModel(ChatModel model, int maxConcurrency) {
        if (maxConcurrency < 1) {
            throw new IllegalArgumentException("loadflow.policy.llm.max-concurrency must be at least 1, got " + maxConcurrency);
        }
        this.model = model;
        this.calls = new Semaphore(maxConcurrency, true);
    }

    @Override
    public ChatResponse chat(ChatRequest request) {
        try {
            calls.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a turn at the model", e);
        }
        try {
            return model.chat(request);
        } finally {
            calls.release();
        }
    }
}
