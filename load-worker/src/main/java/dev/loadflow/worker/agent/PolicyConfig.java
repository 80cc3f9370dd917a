package dev.loadflow.worker.agent;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** {@code loadflow.policy.*}: which policy decides, and the model the LLM policy asks. */
@ConfigMapping(prefix = "loadflow.policy")
public interface PolicyConfig {

    enum Kind { SOP, LLM }

    /** {@code sop} (the deterministic SOP, the default) or {@code llm} (a chat model, the SOP as its fallback). */
    @WithDefault("sop")
    Kind kind();

    Llm llm();

    interface Llm {

        /** An OpenAI-compatible API, e.g. {@code https://host/v1}; {@code /chat/completions} is appended. */
        Optional<String> baseUrl();

        /** The model's name at that API. */
        Optional<String> model();

        /** Its API key, sent as a bearer token; none for a server that asks for none. */
        Optional<String> apiKey();

        /** The longest one call may take; two calls (an answer and its retry) must fit in the run deadline. */
        @WithDefault("PT20S")
        Duration timeout();

        /**
         * Model calls in flight at once from one worker: the provider's concurrency (or its
         * requests per second times the model's latency) divided by the workers. Runs beyond it
         * wait their turn; their loads wait with them, others go on.
         */
        @WithDefault("64")
        int maxConcurrency();

        /** Words added to every client's SOP in the prompt. */
        Optional<String> instructions();

        /** Per client (by client id): words added to that client's SOP in the prompt. */
        Map<String, Client> clients();

        interface Client {
            Optional<String> instructions();
        }
    }
}
