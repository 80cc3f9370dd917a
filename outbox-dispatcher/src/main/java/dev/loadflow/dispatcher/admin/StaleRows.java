package dev.loadflow.dispatcher.admin;

import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.id.ActionKey;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.OutboxRow;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Dead rows that a replay would send too late: their ask was closed, by a decision after the one
 * that made the row (the driver answered, a Hero task took over). Texting the driver about an
 * answered ask days later helps nobody. A row whose own decision closed its ask (the Hero task
 * that took over) is not stale; rows of no ask ({@code evt:} subjects) never are.
 */
final class StaleRows {

    private final EventStore events;

    StaleRows(EventStore events) {
        this.events = events;
    }

    /** The outbox ids among {@code rows} that are stale, reading each load's log once. */
    Set<String> of(List<OutboxRow> rows) {
        Map<String, Map<String, String>> closedBy = new HashMap<>();
        Set<String> stale = new HashSet<>();
        for (OutboxRow row : rows) {
            String subject = subject(row.outboxId());
            if (subject == null || !subject.startsWith("ask:")) {
                continue;
            }
            String closing = closedBy.computeIfAbsent(row.loadId(), this::closingDecisions).get(subject);
            if (closing != null && !closing.equals(row.causationId())) {
                stale.add(row.outboxId());
            }
        }
        return stale;
    }

    /** Per closed ask of the load, the event whose decision closed it. */
    private Map<String, String> closingDecisions(String loadId) {
        Map<String, String> closing = new HashMap<>();
        for (RecordedEntry recorded : events.read(loadId).entries()) {
            if (recorded.entry() instanceof DecisionRecorded decision) {
                decision.closedAsks().forEach(ask -> closing.putIfAbsent(ask, decision.eventId()));
            }
        }
        return closing;
    }

    /** The subject of an outbox id (an {@link ActionKey}), or null for an id that is none. */
    private static String subject(String outboxId) {
        try {
            return ActionKey.parse(outboxId).subject();
        } catch (IllegalArgumentException notAnActionKey) {
            return null;
        }
    }
}
