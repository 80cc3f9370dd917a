package dev.loadflow.worker.agent;

import io.quarkus.runtime.annotations.RegisterForReflection;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.json.EventCodec;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.model.json.SopRulesCodec;
import dev.loadflow.model.policy.SopBook;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.model.projection.OpenAsk;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;

/**
 * What the model is told: a system prompt (the template below with the client's SOP version, its
 * rules as the admin API writes them, and the local time in the client's time zone) and one
 * user message with the load's projected state and the event, as JSON. The template's hash is
 * logged with each model decision, so a decision can be traced to the prompt that made it.
 */
public final class AgentPrompt {

    static final String TEMPLATE = """
            You decide what the freight broker's automation does about one event of a load (a shipment).
            Act only by calling the tools. Call none when nothing needs doing. Always say in one short sentence why.

            The client's standard operating procedure is version {sopVersion} of {clientId}'s SOP, as JSON:
            {sopJson}
            What it means:
            - When a location ping's risk is one of askOn and no ETA request is open, text the driver attempt 1's text
              and wait attempt 1's wait for the answer (set_timer). Pings of other risks need nothing.
            - When the wait ends without an answer, send the next attempt's text and wait its wait, up to as many ETA
              requests as there are attempts; after the last one, hand the load to a Hero (create_hero_task, with the
              heroTaskPriority) to call the driver.
            - In a text, {loadId} is the load, {attempt} the request's number, {stage} the load's stage, {clientName}
              the client's name.
            - smsHours are local times in timeZone (now {localTime} there). A request due outside them that is not
              urgent is still called as usual: the automation holds it until the hours open and then sends the SOP's
              text.
            - When the driver answers, cancel the open ask's timer and tell the Hero desk in Slack what they said.
            - When an SMS to the driver failed and its ask is still open, hand the load to a Hero (urgent).
            - A new assignment that moves the load to another stage updates the stage.
            {instructions}
            Rules you cannot break: text only the load's driver; never more ETA requests per ask than the SOP has
            attempts; every ETA request comes with exactly one set_timer, at most twice that attempt's wait; one Hero
            task per ask.""";

    /** The first 12 hex digits of the template's SHA-256. */
    static final String TEMPLATE_HASH = sha256(TEMPLATE).substring(0, 12);

    private AgentPrompt() {
    }

    /** The system prompt for a decision under {@code sop} at {@code now}. */
    static String system(SopBook.Sop sop, String instructions, Instant now) {
        String json;
        try {
            json = JsonReader.MAPPER.writeValueAsString(SopRulesCodec.json(sop.rules()));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return TEMPLATE.replace("{sopVersion}", Integer.toString(sop.ref().version()))
                .replace("{clientId}", String.valueOf(sop.ref().clientId()))
                .replace("{sopJson}", json)
                .replace("{localTime}", now.atZone(sop.rules().timeZone()).toLocalDateTime().truncatedTo(ChronoUnit.MINUTES).toString())
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
