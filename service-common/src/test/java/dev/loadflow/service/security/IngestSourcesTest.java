package dev.loadflow.service.security;

import dev.loadflow.model.event.EventType;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The sources as a Kubernetes Secret and the manifests name them: environment variables. */
class IngestSourcesTest {

    private static StaticTokens tokens(Map<String, String> env, Map<String, String> properties) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withSources(new EnvConfigSource(env, 300), new PropertiesConfigSource(properties, "test", 100))
                .withMapping(IngestSources.class).build();
        return new StaticTokens(config.getConfigMapping(IngestSources.class), Optional.empty());
    }

    @Test
    void sourcesNamedInTheEnvironmentOwnTheirTypesAndTheShortFormOwnsEvery() {
        StaticTokens tokens = tokens(Map.of(
                "LOADFLOW_INGEST_SOURCES_TELEMATICS_TOKEN", "t-token",
                "LOADFLOW_INGEST_SOURCES_TELEMATICS_EVENT_TYPES", "LoadAssigned,LocationPing",
                "LOADFLOW_INGEST_SOURCES_SMSGATEWAY_TOKEN", "s-token",
                "LOADFLOW_INGEST_SOURCES_SMSGATEWAY_EVENT_TYPES", "InboundSms",
                "LOADFLOW_INGEST_TOKENS", "legacy:l-token"), Map.of());

        assertThat(tokens.match("t-token")).hasValueSatisfying(c -> {
            assertThat(c.name()).isEqualTo("telematics");
            assertThat(c.eventTypes()).containsExactlyInAnyOrder(EventType.LOAD_ASSIGNED, EventType.LOCATION_PING);
        });
        assertThat(tokens.match("s-token")).hasValueSatisfying(c -> {
            assertThat(c.name()).isEqualTo("smsgateway");
            assertThat(c.eventTypes()).containsExactly(EventType.INBOUND_SMS);
        });
        assertThat(tokens.match("l-token")).hasValueSatisfying(c -> assertThat(c.eventTypes())
                .containsExactlyInAnyOrder(EventType.LOAD_ASSIGNED, EventType.LOCATION_PING, EventType.INBOUND_SMS));
        assertThat(tokens.match("no-such-token")).isEmpty();
    }

    /** A source named without its types owns none: a token that leaks says nothing. */
    @Test
    void aSourceNamedWithoutEventTypesMayPostNone() {
        StaticTokens tokens = tokens(Map.of("LOADFLOW_INGEST_SOURCES_TMS_TOKEN", "tms-token"), Map.of());

        assertThat(tokens.match("tms-token")).hasValueSatisfying(c -> {
            assertThat(c.name()).isEqualTo("tms");
            assertThat(c.eventTypes()).isEmpty();
        });
    }

    /**
     * A source's clients, as the environment names them; while its token is rotated both tokens
     * name the one source, so the loads it assigned stay its own.
     */
    @Test
    void aSourceAssignsItsOwnClientsUnderEitherTokenWhileItRotates() {
        StaticTokens tokens = tokens(Map.of(
                "LOADFLOW_INGEST_SOURCES_TMS_TOKEN", "new-tms-token,old-tms-token",
                "LOADFLOW_INGEST_SOURCES_TMS_EVENT_TYPES", "LoadAssigned",
                "LOADFLOW_INGEST_SOURCES_TMS_CLIENTS", "acme-foods,acme-retail"), Map.of());

        for (String token : new String[] {"new-tms-token", "old-tms-token"}) {
            assertThat(tokens.match(token)).as(token).hasValueSatisfying(c -> {
                assertThat(c.name()).isEqualTo("tms");
                assertThat(c.clients().includes("acme-foods")).isTrue();
                assertThat(c.clients().includes("acme-retail")).isTrue();
                assertThat(c.clients().includes("other-broker")).isFalse();
            });
        }
        assertThat(tokens.match("new-tms-token,old-tms-token")).isEmpty();
    }

    @Test
    void aTypeNoSourceMayPostIsRefusedAtStart() {
        assertThatThrownBy(() -> tokens(Map.of(), Map.of(
                "loadflow.ingest.sources.telematics.token", "t-token",
                "loadflow.ingest.sources.telematics.event-types", "LocationPing,TimerFired")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'TimerFired' is not an ingestible event type");
    }
}
