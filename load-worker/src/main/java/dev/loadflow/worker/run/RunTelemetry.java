package dev.loadflow.worker.run;

import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.service.trace.LogContext;
import dev.loadflow.service.trace.Traces;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;

/**
 * A run's spans, log context and metrics: each event's run is a span {@code loadflow.run <type>},
 * a child of the trace the event carries (the parent of its outbox rows' sends), with a
 * {@code loadflow.append} span under it; while the run is current, its log lines carry the load,
 * the event, the correlation id and the trace; its end counts in {@link WorkerMetrics}.
 */
public final class RunTelemetry implements RunListener {

    private static final AttributeKey<String> LOAD_ID = AttributeKey.stringKey("loadflow.load_id");
    private static final AttributeKey<String> EVENT_ID = AttributeKey.stringKey("loadflow.event_id");
    private static final AttributeKey<String> RESULT = AttributeKey.stringKey("loadflow.result");

    private final WorkerMetrics metrics;
    private final Traces traces;

    public RunTelemetry(WorkerMetrics metrics, Traces traces) {
        this.metrics = metrics;
        this.traces = traces;
    }

    @Override
    public Run started(InboundEvent event) {
        Span span = traces.start("loadflow.run " + event.typeName(), SpanKind.CONSUMER, event.traceparent());
        span.setAttribute(LOAD_ID, event.loadId());
        span.setAttribute(EVENT_ID, event.eventId());
        return new Traced(event, span);
    }

    @Override
    public void conflict() {
        metrics.conflict();
    }

    @Override
    public void duplicateActionKey() {
        metrics.duplicateActionKey();
    }

    @Override
    public void discarded(DecisionRecorded decision) {
        if (decision.provenance() != null && decision.provenance().askedModel()) {
            metrics.wastedModelCall();
        }
    }

    private final class Traced implements Run {

        private final InboundEvent event;
        private final Span span;

        Traced(InboundEvent event, Span span) {
            this.event = event;
            this.span = span;
        }

        @Override
        public String traceparent() {
            return Traces.traceparent(span);
        }

        @Override
        public Step current() {
            Scope scope = span.makeCurrent();
            LogContext logged = LogContext.of(event.loadId(), event.eventId(), event.correlationId(), span);
            return () -> {
                logged.close();
                scope.close();
            };
        }

        @Override
        public Step appending() {
            return traces.start("loadflow.append", SpanKind.INTERNAL, traceparent())::end;
        }

        @Override
        public void ended(RunResult result, long nanos) {
            if (result != RunResult.NOT_RUN) {
                metrics.run(result, nanos);
            }
            span.setAttribute(RESULT, result.tag());
            span.end();
        }

        @Override
        public void passedOn() {
            span.setAttribute(RESULT, "run_alone");
            span.end();
        }
    }
}
