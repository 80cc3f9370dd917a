package dev.loadflow.service.trace;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;

import java.time.Instant;
import java.util.List;

/**
 * One trace from ingest to the last SMS. A W3C {@code traceparent} travels with the work
 * (in the event's envelope, on the outbox row, on the timer) across the queue and the
 * database, and each service starts its span of the work as a child of it. Plain Java over
 * the OpenTelemetry API: the services pass Quarkus's {@link OpenTelemetry}, harnesses an SDK
 * of their own, and {@link #NONE} still carries an incoming trace on (its spans are the
 * parent's context, not recorded).
 */
public final class Traces {

    /** No tracing of its own: a span continues its parent's context unrecorded, so the trace still flows. */
    public static final Traces NONE = new Traces(OpenTelemetry.noop());

    private static final String TRACEPARENT = "traceparent";

    private static final TextMapGetter<String> HEADER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
            return List.of(TRACEPARENT);
        }

        @Override
        public String get(String carrier, String key) {
            return TRACEPARENT.equals(key) ? carrier : null;
        }
    };

    private final Tracer tracer;

    public Traces(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer("dev.loadflow");
    }

    /**
     * Starts {@code name} as a child of the span {@code traceparent} names, or as the root of a
     * new trace when it names none (null, or not a valid {@code traceparent}).
     */
    public Span start(String name, SpanKind kind, String traceparent) {
        return tracer.spanBuilder(name).setSpanKind(kind).setParent(parent(traceparent)).startSpan();
    }

    /** {@link #start(String, SpanKind, String)} for work that began at {@code startedAt} (e.g. a claim, seen once it returned). */
    public Span start(String name, SpanKind kind, String traceparent, Instant startedAt) {
        return tracer.spanBuilder(name).setSpanKind(kind).setParent(parent(traceparent)).setStartTimestamp(startedAt)
                .startSpan();
    }

    /** The W3C {@code traceparent} of {@code span}; null when it belongs to no trace. */
    public static String traceparent(Span span) {
        SpanContext context = span.getSpanContext();
        if (!context.isValid()) {
            return null;
        }
        return "00-" + context.getTraceId() + "-" + context.getSpanId() + "-" + context.getTraceFlags().asHex();
    }

    /** The {@code traceparent} of the span current on this thread (e.g. an HTTP request's); null outside any. */
    public static String current() {
        return traceparent(Span.current());
    }

    private static Context parent(String traceparent) {
        if (traceparent == null) {
            return Context.root();
        }
        return W3CTraceContextPropagator.getInstance().extract(Context.root(), traceparent, HEADER);
    }
}
