package dev.loadflow.worker.agent;

import io.quarkus.runtime.annotations.RegisterForReflection;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.json.EventCodec;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.model.policy.SopRules;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.model.projection.OpenAsk;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What the model is told: a system prompt (the template below with the client's SOP) and one
 * user message with the load's projected state and the event, as JSON. The template's hash is
 * logged with each model decision, so a decision can be traced to the prompt that made it.
 */
public final class AgentPrompt {

    static final String TEMPLATE = """
            You decide what the freight broker's automation does about one event of a load (a shipment).
            Act only by calling the tools. Call none when nothing needs doing. Always say in one short sentence why.

            The client's standard operating procedure:
            - When a location ping says the load is at high risk of being late and no ETA request is open, text the
              driver to ask for their ETA and wait {retryAfterSeconds} seconds for the answer (set_timer). Low and
              medium risk pings need nothing.
            - When the wait ends without an answer, ask again, up to {maxAttempts} ETA requests in all; after the
              last one, hand the load to a Hero (create_hero_task, urgent) to call the driver.
            - The ETA request reads: "{etaRequestText}" ({attempt} is the request's number).
            - When the driver answers, cancel the open ask's timer and tell the Hero desk in Slack what they said.
            - When an SMS to the driver failed and its ask is still open, hand the load to a Hero (urgent).
            - A new assignment that moves the load to another stage updates the stage.
            {instructions}
            Rules you cannot break: text only the load's driver; never more than {maxAttempts} ETA requests per ask;
            every ETA request comes with exactly one set_timer, at most twice the wait above; one Hero task per ask.""";

    /** The first 12 hex digits of the template's SHA-256. */
    static final String TEMPLATE_HASH = sha256(TEMPLATE).substring(0, 12);

    private AgentPrompt() {
    }

    static String system(SopRules rules, String instructions) {
        return TEMPLATE.replace("{retryAfterSeconds}", Long.toString(rules.retryAfter().toSeconds()))
                .replace("{maxAttempts}", Integer.toString(rules.maxAttempts()))
                .replace("{etaRequestText}", rules.etaRequestText())
                .replace("{instructions}", instructions == null || instructions.isBlank() ? "" : instructions.strip() + "\n");
    }

    /** What the model reads of a run: the load and the event. */
    @RegisterForReflection
    record UserMessage(Load load, JsonNode event) {
    }

    @RegisterForReflection
    record Load(String loadId, String clientId, String driverPhone, String stage, List<Ask> openAsks) {
    }

    @RegisterForReflection
    record Ask(String askId, int step, String currentTimer, String openedAt) {
    }

    /** The load's state and the event, as the model reads them (the event as the log writes it). */
    static String user(LoadState state, InboundEvent event) {
        List<Ask> asks = state.openAsks().values().stream().map(ask -> new Ask(ask.askId().toString(), ask.step(),
                ask.currentTimer() == null ? null : ask.currentTimer().toString(), ask.openedAt().toString())).toList();
        UserMessage message = new UserMessage(new Load(state.loadId(), state.clientId(), state.driverPhone(), state.stage(), asks),
                JsonReader.parse(EventCodec.encodeToString(event)).node());
        try {
            return JsonReader.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(message);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
