package dev.loadflow.service.trace;

import io.opentelemetry.api.trace.Span;
import org.jboss.logging.MDC;

/**
 * What a log line is about, in the MDC while a piece of work runs on this thread: the load, the
 * event (or outbox row), the correlation id and the trace id. The JSON log format writes them
 * with every line; {@link #close} takes them out again.
 */
public final class LogContext implements AutoCloseable {

    public static final String LOAD_ID = "loadId";
    public static final String EVENT_ID = "eventId";
    public static final String CORRELATION_ID = "correlationId";
    public static final String TRACE_ID = "traceId";

    private static final String[] KEYS = {LOAD_ID, EVENT_ID, CORRELATION_ID, TRACE_ID};

    private LogContext() {
    }

    /** Puts the work's ids in the MDC ({@code eventId}: the event, or the outbox row); null ones are left out. */
    public static LogContext of(String loadId, String eventId, String correlationId, Span span) {
        put(LOAD_ID, loadId);
        put(EVENT_ID, eventId);
        put(CORRELATION_ID, correlationId);
        put(TRACE_ID, span.getSpanContext().isValid() ? span.getSpanContext().getTraceId() : null);
        return new LogContext();
    }

    private static void put(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }

    @Override
    public void close() {
        for (String key : KEYS) {
            MDC.remove(key);
        }
    }
}
