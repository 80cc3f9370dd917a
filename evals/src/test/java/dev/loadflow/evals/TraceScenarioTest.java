package dev.loadflow.evals;

import dev.loadflow.evals.sim.ChannelSimulator;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.log.RecordedEntry;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What on-call sees in the tracing backend: one trace from the ping's ingest request through
 * its decision, the first SMS and its outcome, the timer it set, the timer's firing and the
 * second SMS. The spans are the ones the services' code ends (an in-memory exporter stands in
 * for the OTLP collector), and the channel simulator reads each request's {@code traceparent}.
 */
class TraceScenarioTest extends EvalScenario {

    private static String traceId(String traceparent) {
        assertThat(traceparent).as("a W3C traceparent").matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]");
        return traceparent.split("-")[1];
    }

    private static InboundEvent event(String entryId) {
        return log().entries().stream().map(RecordedEntry::entry).filter(e -> e.entryId().equals(entryId))
                .map(InboundEvent.class::cast).findFirst().orElseThrow(() -> new AssertionError("no entry " + entryId));
    }

    @Test
    void oneTraceRunsFromThePingsIngestThroughTheSecondSms() {
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();
        at("07:31").settle();

        String trace = traceId(event("ping_0700").traceparent());
        assertThat(smsToDriver()).hasSize(2).allSatisfy(sms ->
                assertThat(traceId(sms.traceparent())).as("the SMS request's traceparent").isEqualTo(trace));
        assertThat(traceId(event("evt:tmr:" + LOAD + ":" + ASK + ":1").traceparent()))
                .as("the timer's firing continues the trace").isEqualTo(trace);
        assertThat(traceId(event("out:" + key(1, "send_sms") + ":delivered").traceparent()))
                .as("the first SMS's outcome continues the trace").isEqualTo(trace);
        assertThat(traceId(event("assign_1").traceparent())).as("the assignment came in its own request").isNotEqualTo(trace);

        List<SpanData> spans = h.spans.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(trace)).toList();
        assertThat(spans).extracting(SpanData::getName).contains("POST /loads/{loadId}/events",
                "loadflow.run LocationPing", "loadflow.send send_sms", "loadflow.send set_timer",
                "loadflow.run ActionOutcome", "loadflow.run TimerFired", "loadflow.append", "loadflow.claim");
        Map<String, SpanData> byId = spans.stream().collect(Collectors.toMap(SpanData::getSpanId, Function.identity()));
        SpanData secondSms = spans.stream().filter(s -> s.getName().equals("loadflow.send send_sms"))
                .filter(s -> key(2, "send_sms").equals(s.getAttributes().get(
                        io.opentelemetry.api.common.AttributeKey.stringKey("loadflow.outbox_id"))))
                .findFirst().orElseThrow();
        assertThat(ancestry(secondSms, byId)).as("the second SMS's spans, back to the ingest request")
                .containsExactly("loadflow.send send_sms", "loadflow.run TimerFired", "loadflow.send set_timer",
                        "loadflow.run LocationPing", "POST /loads/{loadId}/events");
        assertThat(channels().delivered("sms")).extracting(ChannelSimulator.Delivery::traceparent)
                .as("each request its own send's span").doesNotHaveDuplicates();
    }

    /** The names of {@code span} and its parents, up to the root. */
    private static List<String> ancestry(SpanData span, Map<String, SpanData> byId) {
        List<String> names = new java.util.ArrayList<>();
        for (SpanData s = span; s != null; s = byId.get(s.getParentSpanId())) {
            names.add(s.getName());
        }
        return names;
    }
}
