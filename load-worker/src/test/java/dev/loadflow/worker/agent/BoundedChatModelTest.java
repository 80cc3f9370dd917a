package dev.loadflow.worker.agent;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.loadflow.testing.Waits.await;

/** {@code loadflow.policy.llm.max-concurrency}: runs beyond it wait their turn at the model; none is refused. */
class BoundedChatModelTest {

    @Test
    void noMoreCallsThanTheBoundAreInFlightAndEveryOneIsAnswered() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch answer = new CountDownLatch(1);
        ChatModel slow = new ChatModel() {
            @Override
            public ChatResponse chat(ChatRequest request) {
                most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                try {
                    answer.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                inFlight.decrementAndGet();
                return ChatResponse.builder().aiMessage(AiMessage.from("ok")).build();
            }
        };
        ChatModel bounded = AgentPolicy.bounded(slow, 3);
        ExecutorService runs = Executors.newVirtualThreadPerTaskExecutor();
        List<Future<ChatResponse>> answers = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            answers.add(runs.submit(() -> bounded.chat(ChatRequest.builder().messages(UserMessage.from("ETA?")).build())));
        }

        await().atMost(Duration.ofSeconds(5)).until(() -> inFlight.get() == 3);
        answer.countDown();
        for (Future<ChatResponse> a : answers) {
            assertThat(a.get(10, TimeUnit.SECONDS).aiMessage().text()).isEqualTo("ok");
        }
        assertThat(most.get()).as("calls in flight at once").isEqualTo(3);
        runs.shutdown();
        assertThatThrownBy(() -> AgentPolicy.bounded(slow, 0)).hasMessageContaining("max-concurrency");
    }
}
