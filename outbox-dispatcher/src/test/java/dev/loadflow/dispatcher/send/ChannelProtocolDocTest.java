package dev.loadflow.dispatcher.send;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.loadflow.model.action.Urgency;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The channel protocol's OpenAPI document for adapter writers ({@code docs/channel-protocol.openapi.yaml})
 * says what the dispatcher sends: each body's fields are the ones it serialises, each path the one
 * it posts to, and the headers are the ones every request carries.
 */
class ChannelProtocolDocTest {

    private static final JsonNode DOC = read();

    private static JsonNode read() {
        try {
            return new ObjectMapper(new YAMLFactory()).readTree(Path.of("..", "docs", "channel-protocol.openapi.yaml").toFile());
        } catch (IOException e) {
            throw new IllegalStateException("docs/channel-protocol.openapi.yaml is unreadable", e);
        }
    }

    private static List<String> properties(String schema) {
        List<String> names = new ArrayList<>();
        DOC.path("components").path("schemas").path(schema).path("properties").fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static List<String> components(Class<? extends Record> body) {
        return Arrays.stream(body.getRecordComponents()).map(java.lang.reflect.RecordComponent::getName).toList();
    }

    @Test
    void eachBodyHasTheFieldsTheDispatcherSends() {
        assertThat(properties("Sms")).containsExactlyElementsOf(components(ChannelBodies.Sms.class));
        assertThat(properties("HeroTask")).containsExactlyElementsOf(components(ChannelBodies.HeroTask.class));
        assertThat(properties("SlackPost")).containsExactlyElementsOf(components(ChannelBodies.SlackPost.class));
        assertThat(properties("StageChange")).containsExactlyElementsOf(components(ChannelBodies.StageChange.class));
        List<String> urgencies = new ArrayList<>();
        DOC.path("components").path("schemas").path("HeroTask").path("properties").path("urgency").path("enum")
                .forEach(value -> urgencies.add(value.asText()));
        assertThat(urgencies).containsExactlyElementsOf(Arrays.stream(Urgency.values()).map(Urgency::wire).toList());
    }

    @Test
    void thePathsAndHeadersAreTheOnesEachRequestCarries() {
        List<String> paths = new ArrayList<>();
        DOC.path("paths").fieldNames().forEachRemaining(paths::add);
        assertThat(paths).containsExactly("/messages", "/tasks", "/");
        assertThat(DOC.path("components").path("parameters").path("IdempotencyKey").path("name").asText())
                .isEqualTo(JsonEndpoint.IDEMPOTENCY_KEY);
        assertThat(DOC.path("components").path("parameters").path("Traceparent").path("name").asText())
                .isEqualTo(JsonEndpoint.TRACEPARENT);
        List<String> signed = new ArrayList<>();
        DOC.path("webhooks").path("stageChanged").path("post").path("parameters").forEach(p -> signed.add(p.path("name").asText()));
        assertThat(signed).contains(JsonEndpoint.WEBHOOK_ID, JsonEndpoint.WEBHOOK_TIMESTAMP, JsonEndpoint.WEBHOOK_SIGNATURE);
    }
}
