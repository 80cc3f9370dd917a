package dev.loadflow.worker.agent;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Provenance;
import dev.loadflow.model.policy.Decision;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.model.policy.SopBook;
import dev.loadflow.model.policy.SopPolicy;
import dev.loadflow.model.policy.SopRules;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.model.projection.OpenAsk;
import org.jboss.logging.Logger;

import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The LLM decision policy: an OpenAI-compatible chat model decides by tool calls, one tool per
 * action type ({@link AgentTools}), given the client's SOP, the load's state and the event
 * ({@link AgentPrompt}). The {@link GuardRails} turn its calls into actions or refuse them; a
 * refused answer is sent back once with the reason, and when the second is refused too, or the
 * model fails or does not answer within its timeout, the {@link SopPolicy} decides and the
 * decision says so ({@code sop-fallback}, with why). The deterministic filter stays in front:
 * outcomes and stale timers never reach this policy.
 */
public final class AgentPolicy implements DecisionPolicy {

    private static final Logger LOG = Logger.getLogger(AgentPolicy.class);
    private static final int ANSWERS = 2;

    private final ChatModel model;
    private final String modelName;
    private final SopBook sops;
    private final Function<String, String> instructions;
    private final SopPolicy sop;
    private final AgentMetrics metrics;

    /**
     * @param sops         the clients' SOP versions (they bound the model's answers and make the fallback)
     * @param instructions the client's added prompt words (or null)
     */
    public AgentPolicy(ChatModel model, String modelName, SopBook sops,
                       Function<String, String> instructions, AgentMetrics metrics) {
        this.model = model;
        this.modelName = modelName;
        this.sops = sops;
        this.instructions = instructions;
        this.sop = new SopPolicy(sops);
        this.metrics = metrics;
    }

    /** {@code model} with at most {@code maxConcurrency} calls in flight from this worker. */
    public static ChatModel bounded(ChatModel model, int maxConcurrency) {
        return new BoundedChatModel(model, maxConcurrency);
    }

    @Override
    public Decision decide(InboundEvent event, LoadState state, Instant now) {
        if (event.payload() instanceof EventPayload.InboundSms sms && SopPolicy.fromStranger(sms, state)) {
            // not the model's to judge: a stranger's message answers no ask, and its text goes to no prompt
            return sop.decide(event, state, now);
        }
        if (event.payload() instanceof EventPayload.TimerFired fired
                && state.openAsk(fired.askId()).map(OpenAsk::waitsForWindow).orElse(false)) {
            // the SMS hours opened for a text already decided: it goes as the ask's SOP version words it
            return sop.decide(event, state, now);
        }
        String client = metrics.label(state.clientId());
        SopBook.Sop current = sopOf(event, state);
        SopRules clientRules = current.rules();
        List<ChatMessage> messages = new ArrayList<>(List.of(
                SystemMessage.from(AgentPrompt.system(current, instructions.apply(state.clientId()), now)),
                UserMessage.from(AgentPrompt.user(state, event))));
        long tokensIn = 0;
        long tokensOut = 0;
        long started = System.nanoTime();
        String why = null;
        String reason = null;
        for (int answer = 1; answer <= ANSWERS; answer++) {
            long callStarted = System.nanoTime();
            ChatResponse response;
            try {
                response = model.chat(ChatRequest.builder().messages(messages).toolSpecifications(AgentTools.specifications()).build());
            } catch (RuntimeException e) {
                reason = timedOut(e) ? "timeout" : "error";
                metrics.call(client, reason, Duration.ofNanos(System.nanoTime() - callStarted));
                why = reason.equals("timeout") ? "the model did not answer in time" : "the model failed: " + message(e);
                LOG.warnf("model call for %s of load %s: %s; the SOP decides", event.eventId(), event.loadId(), why);
                break;
            }
            TokenUsage usage = response.tokenUsage();
            long in = usage == null || usage.inputTokenCount() == null ? 0 : usage.inputTokenCount();
            long out = usage == null || usage.outputTokenCount() == null ? 0 : usage.outputTokenCount();
            tokensIn += in;
            tokensOut += out;
            metrics.tokens(client, in, out);
            AiMessage ai = response.aiMessage();
            List<ToolCall> calls = ai.hasToolExecutionRequests()
                    ? ai.toolExecutionRequests().stream().map(r -> new ToolCall(r.name(), r.arguments())).toList()
                    : List.of();
            try {
                Decision decision = GuardRails.check(calls, ai.text(), event, state, clientRules, now);
                metrics.call(client, "ok", Duration.ofNanos(System.nanoTime() - callStarted));
                metrics.decided(client, Provenance.LLM);
                return decision.under(current.ref()).by(Provenance.llm(modelName, AgentPrompt.TEMPLATE_HASH, tokensIn, tokensOut, millisSince(started)));
            } catch (RefusedAnswer refused) {
                metrics.call(client, "refused", Duration.ofNanos(System.nanoTime() - callStarted));
                reason = "refused";
                why = "answer " + answer + " refused: " + refused.getMessage();
                LOG.warnf("model answer %d for %s of load %s refused: %s", answer, event.eventId(), event.loadId(),
                        refused.getMessage());
                messages.add(ai);
                for (ToolExecutionRequest request : ai.hasToolExecutionRequests() ? ai.toolExecutionRequests()
                        : List.<ToolExecutionRequest>of()) {
                    messages.add(ToolExecutionResultMessage.from(request, "not done: the answer was refused"));
                }
                messages.add(UserMessage.from("Your answer was refused: " + refused.getMessage()
                        + ". Nothing was done. Decide again, within the rules."));
            }
        }
        metrics.fallback(client, reason);
        metrics.decided(client, Provenance.SOP_FALLBACK);
        Decision fallback = sop.decide(event, state, now);
        return fallback.by(Provenance.fallback(modelName, AgentPrompt.TEMPLATE_HASH, tokensIn, tokensOut,
                millisSince(started), why));
    }

    /** The SOP version that decides {@code event}: an open ask's timer keeps the ask's version, the rest the newest. */
    private SopBook.Sop sopOf(InboundEvent event, LoadState state) {
        if (event.payload() instanceof EventPayload.TimerFired fired) {
            return state.openAsk(fired.askId()).map(ask -> sops.at(state.clientId(), ask.sopVersion()))
                    .orElseGet(() -> sops.current(state.clientId()));
        }
        return sops.current(state.clientId());
    }

    private static long millisSince(long nanos) {
        return Duration.ofNanos(System.nanoTime() - nanos).toMillis();
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof HttpTimeoutException || t instanceof java.util.concurrent.TimeoutException
                    || t.getClass().getSimpleName().contains("Timeout")) {
                return true;
            }
        }
        return false;
    }

    private static String message(Throwable e) {
        String text = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return text.length() > 200 ? text.substring(0, 200) + "…" : text;
    }
}
