package dev.loadflow.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.model.policy.Decision;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.trace.Traces;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.worker.run.LoadRun;
import dev.loadflow.worker.run.RunResult;
import dev.loadflow.worker.run.WorkerMetrics;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.asSource;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * What on-call reads: an ingest request's trace goes with its event, and a log line about a
 * load's run names the load, the event and the trace, as JSON (the format outside dev and test,
 * written to a file here so the test can read it back).
 */
@QuarkusTest
@TestProfile(TracesAndLogsTest.JsonLogFile.class)
@WithTestResource(PostgresTestResource.class)
class TracesAndLogsTest {

    static final Path LOG = Path.of("target", "json-log-test.log");
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String TRACEPARENT = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";

    public static class JsonLogFile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.log.file.enabled", "true", "quarkus.log.file.path", LOG.toString(),
                    "quarkus.log.file.json.enabled", "true");
        }
    }

    @Inject
    EventStore events;

    @Inject
    Traces traces;

    @Inject
    Clock clock;

    @Inject
    WorkerMetrics metrics;

    @Test
    void aPhoneNumberInALogLineIsMasked() throws Exception {
        String marker = "masking-" + newLoadId();
        Logger.getLogger("dev.loadflow.worker").warnf("%s: an SMS from %s, text 'call 312-555-0100'",
                marker, "+15550100");

        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(LOG)
                && Files.readAllLines(LOG).stream().anyMatch(l -> l.contains(marker)));
        assertThat(Files.readAllLines(LOG).stream().filter(l -> l.contains(marker)))
                .singleElement().asString().contains("an SMS from +1***00").contains("call ***00").doesNotContain("5550100");
    }

    @Test
    void anIngestRequestsTraceGoesWithItsEvent() {
        String load = newLoadId();

        asSource().header("traceparent", TRACEPARENT).contentType("application/json").body(assigned("assign_1"))
                .post("/loads/{loadId}/events", load).then().statusCode(202);

        String logged = awaitVersion(load, 2).getString("log[0].body.traceparent");
        assertThat(logged).as("the event's traceparent: a span of the request's trace")
                .startsWith("00-" + TRACE_ID + "-").isNotEqualTo(TRACEPARENT);
    }

    @Test
    void aConflictIsLoggedAsJsonWithTheLoadTheEventAndTheTrace() throws IOException {
        String load = newLoadId();
        Instant now = clock.instant();
        InboundEvent mine = new InboundEvent("mine", load, now, now, "c-mine", null,
                new EventPayload.InboundSms("+15550100", "mine")).withTraceparent(TRACEPARENT);
        InboundEvent other = new InboundEvent("other", newLoadId(), now, now, "c-other", null,
                new EventPayload.InboundSms("+15550100", "other"));
        LoadRun run = LoadRun.builder(racing(events, load, now), (event, state, at) -> Decision.noop("ok"), clock)
                .metrics(metrics).projectionCache(0).traces(traces).build();

        assertThat(run.processAll(List.of(mine, other))).extracting(o -> o.result())
                .containsExactly(RunResult.DECIDED, RunResult.DECIDED);

        await().atMost(Duration.ofSeconds(10)).until(() -> conflictLine(load).isPresent());
        JsonNode line = conflictLine(load).orElseThrow();
        assertThat(line.path("level").asText()).isEqualTo("INFO");
        assertThat(line.path("timestamp").asText()).as("an ISO timestamp").matches("\\d{4}-\\d{2}-\\d{2}T.*");
        assertThat(line.path("mdc").path("loadId").asText()).isEqualTo(load);
        assertThat(line.path("mdc").path("eventId").asText()).isEqualTo("mine");
        assertThat(line.path("mdc").path("correlationId").asText()).isEqualTo("c-mine");
        assertThat(line.path("mdc").path("traceId").asText()).isEqualTo(TRACE_ID);
    }

    /** A store under which another writer appends to {@code load} between a batch's read and its append. */
    private static EventStore racing(EventStore store, String load, Instant now) {
        InboundEvent interloper = new InboundEvent("interloper", load, now, now, "c-i", null,
                new EventPayload.InboundSms("+15550100", "first"));
        return (EventStore) Proxy.newProxyInstance(EventStore.class.getClassLoader(), new Class<?>[]{EventStore.class},
                (proxy, method, args) -> {
                    try {
                        Object result = method.invoke(store, args);
                        if (method.getName().equals("readAfter") && ((Map<?, ?>) args[0]).size() > 1) {
                            store.append(load, List.of(interloper), 0, List.of());
                        }
                        return result;
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static Optional<JsonNode> conflictLine(String load) throws IOException {
        if (!Files.exists(LOG)) {
            return Optional.empty();
        }
        return Files.readAllLines(LOG).stream().filter(l -> l.startsWith("{") && l.contains(load))
                .map(l -> JsonReader.parse(l).node()).filter(n -> n.path("message").asText().startsWith("conflict:"))
                .findFirst();
    }
}
