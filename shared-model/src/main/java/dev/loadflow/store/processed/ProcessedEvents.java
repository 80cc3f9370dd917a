package dev.loadflow.store.processed;

import java.time.Instant;
import java.util.Collection;
import java.util.Set;

/**
 * Which fan-out subscriber (handler) has handled which event (ADR 0006). The primary key
 * {@code (handler_name, event_id)} makes a duplicate delivery a no-op at the database level.
 */
public interface ProcessedEvents {

    /** Records that {@code handler} handled {@code eventId}; false if it already had. */
    boolean markProcessed(String handler, String eventId, Instant now);

    boolean isProcessed(String handler, String eventId);

    /** Those of {@code handlers} that already handled {@code eventId}. */
    Set<String> handledBy(String eventId, Collection<String> handlers);
}
