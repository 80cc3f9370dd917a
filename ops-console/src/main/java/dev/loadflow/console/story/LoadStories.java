package dev.loadflow.console.story;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.console.ConsoleConfig;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.event.LogArchived;
import dev.loadflow.model.event.MessageSkipped;
import dev.loadflow.model.event.Provenance;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.model.json.LogCodec;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.service.security.PhoneMask;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.queue.HeldLoads;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.store.timer.TimerStore;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/** Reads a load's story from the log, the outbox and the timers (the console's read-only role). */
@ApplicationScoped
public class LoadStories {

    private final EventStore events;
    private final Outbox outbox;
    private final TimerStore timers;
    private final HeldLoads held;
    private final ConsoleConfig config;

    LoadStories(EventStore events, Outbox outbox, TimerStore timers, HeldLoads held, ConsoleConfig config) {
        this.events = events;
        this.outbox = outbox;
        this.timers = timers;
        this.held = held;
        this.config = config;
    }

    /** The story of {@code loadId}; {@link LoadStory#found()} is false for a load nothing is known of. */
    public LoadStory of(String loadId, boolean masked) {
        UnaryOperator<String> mask = masked ? PhoneMask::mask : UnaryOperator.identity();
        LoadLog log = events.read(loadId);
        Instant start = log.entries().isEmpty() ? null : log.entries().getFirst().recordedAt();
        Map<String, List<LoadStory.Row>> rowsByEvent = new LinkedHashMap<>();
        for (OutboxRow row : outbox.forLoad(loadId)) {
            rowsByEvent.computeIfAbsent(Objects.requireNonNullElse(row.causationId(), ""), k -> new ArrayList<>())
                    .add(row(row, mask, start));
        }
        Map<String, List<LoadStory.Row>> rowsOfDecision = new LinkedHashMap<>(rowsByEvent);
        List<LoadStory.Entry> entries = new ArrayList<>();
        for (RecordedEntry recorded : log.entries()) {
            List<LoadStory.Row> rows = recorded.entry() instanceof DecisionRecorded decision
                    ? rowsByEvent.getOrDefault(decision.eventId(), List.of()) : List.of();
            if (recorded.entry() instanceof DecisionRecorded decision) {
                rowsByEvent.remove(decision.eventId());
            }
            entries.add(entry(recorded, rows, mask));
        }
        List<LoadStory.Row> otherRows = rowsByEvent.values().stream().flatMap(List::stream).toList();
        List<LoadStory.TimerLine> timerLines = timers.forLoad(loadId).stream().map(t -> timer(t, start)).toList();
        LoadState state = log.entries().isEmpty() ? null : LoadState.project(log);
        List<LoadStory.Ask> asks = state == null ? List.of() : state.openAsks().values().stream()
                .map(a -> new LoadStory.Ask(a.askId().toString(), a.step(), when(start, a.openedAt()),
                        a.currentTimer() == null ? null : a.currentTimer().toString())).toList();
        return new LoadStory(loadId, log.version(), state == null ? null : state.stage(),
                state == null ? null : mask.apply(state.driverPhone()), entries, otherRows, timerLines,
                held.of(loadId).map(h -> new LoadStory.Hold(h.messageId(), h.messageType(), mask.apply(h.reason()),
                        when(start, h.since()), h.state().wire())).orElse(null),
                steps(log, entries, rowsOfDecision, start), asks, text(start));
    }

    /**
     * The story's steps: each event with its decision and the rows the decision made; an
     * outcome whose decision made nothing is left to its row; skipped messages and archive marks
     * stand alone.
     */
    private static List<LoadStory.Step> steps(LoadLog log, List<LoadStory.Entry> entries, Map<String, List<LoadStory.Row>> rowsOfDecision,
                                              Instant start) {
        Map<String, DecisionRecorded> decisions = new LinkedHashMap<>();
        Map<String, LoadStory.Entry> decisionEntries = new LinkedHashMap<>();
        for (int i = 0; i < log.entries().size(); i++) {
            if (log.entries().get(i).entry() instanceof DecisionRecorded decision) {
                decisions.put(decision.eventId(), decision);
                decisionEntries.put(decision.eventId(), entries.get(i));
            }
        }
        List<LoadStory.Step> steps = new ArrayList<>();
        for (int i = 0; i < log.entries().size(); i++) {
            RecordedEntry recorded = log.entries().get(i);
            LoadStory.Entry shown = entries.get(i);
            String at = since(start, recorded.recordedAt());
            switch (recorded.entry()) {
                case InboundEvent event -> {
                    DecisionRecorded decision = decisions.get(event.eventId());
                    boolean outcome = event.type() == dev.loadflow.model.event.EventType.ACTION_OUTCOME;
                    if (outcome && (decision == null || decision.actions().isEmpty())) {
                        continue;
                    }
                    LoadStory.Entry decided = decisionEntries.get(event.eventId());
                    steps.add(new LoadStory.Step(recorded.seq(), at, text(recorded.recordedAt()), "event", shown.type(), event.eventId(),
                            shown.summary(), shown.detail(), decided == null ? null : decided.summary(),
                            decided == null ? "not decided yet" : decided.detail(), decision != null && decision.filtered(),
                            decision == null ? List.of() : rowsOfDecision.getOrDefault(decision.eventId(), List.of()), shown.trace()));
                }
                case DecisionRecorded ignored -> {
                    // shown with its event
                }
                default -> steps.add(new LoadStory.Step(recorded.seq(), at, text(recorded.recordedAt()), shown.kind(), shown.type(),
                        shown.entryId(), shown.summary(), shown.detail(), null, null, false, List.of(), shown.trace()));
            }
        }
        return steps;
    }

    /** {@code +m:ss} (or {@code +h:mm:ss}) from the story's first entry, {@code -m:ss} before it. */
    static String since(Instant start, Instant at) {
        java.time.Duration d = java.time.Duration.between(start, at);
        String sign = d.isNegative() ? "-" : "+";
        d = d.abs();
        return d.toHours() > 0
                ? String.format(Locale.ROOT, "%s%d:%02d:%02d", sign, d.toHours(), d.toMinutesPart(), d.toSecondsPart())
                : String.format(Locale.ROOT, "%s%d:%02d", sign, d.toMinutes(), d.toSecondsPart());
    }

    /** A time as the page shows it: since the story's first entry, the instant in full on hover (in full alone for a story with no entry). */
    static LoadStory.When when(Instant start, Instant at) {
        if (at == null) {
            return null;
        }
        return new LoadStory.When(start == null ? at.toString() : since(start, at), at.toString());
    }

    private LoadStory.Entry entry(RecordedEntry recorded, List<LoadStory.Row> rows, UnaryOperator<String> mask) {
        LogEntry entry = recorded.entry();
        JsonNode body = JsonReader.parse(LogCodec.encode(entry)).node();
        String summary;
        String detail;
        LoadStory.TraceLink trace = LoadStory.TraceLink.NONE;
        switch (entry) {
            case InboundEvent event -> {
                summary = fields(body.path("payload"));
                detail = "occurred " + text(event.occurredAt()) + (event.source() == null ? "" : ", from " + event.source());
                trace = trace(event.traceparent());
            }
            case DecisionRecorded decision -> {
                summary = (decision.filtered() ? "filtered: " : "") + decision.reason();
                detail = decidedBy(decision) + sop(decision)
                        + (decision.actions().isEmpty() ? ", no actions"
                        : ", actions: " + decision.actions().stream().map(a -> a.type().wire()).collect(Collectors.joining(", ")))
                        + (decision.closedAsks().isEmpty() ? "" : "; closes " + String.join(", ", decision.closedAsks()));
            }
            case MessageSkipped skipped -> {
                summary = "skipped " + skipped.messageId() + " (" + skipped.messageType() + ") by " + skipped.principal()
                        + ": " + skipped.reason();
                detail = "in place of the message, which was never run";
            }
            case LogArchived archived -> {
                summary = "entries up to seq " + archived.throughSeq() + " moved to the archive";
                detail = "read back from event_log_archive; nothing in the load's story changed";
            }
            default -> {
                summary = entry.typeName();
                detail = "";
            }
        }
        return new LoadStory.Entry(recorded.seq(), text(recorded.recordedAt()), entry.kind(), entry.typeName(),
                entry.entryId(), mask.apply(summary), mask.apply(detail), mask.apply(body.toPrettyString()), trace, rows);
    }

    private LoadStory.Row row(OutboxRow row, UnaryOperator<String> mask, Instant start) {
        List<LoadStory.Failure> failures = row.attempts() > 1 || row.lastFailure() != null || row.deadAt() != null
                ? outbox.failures(row.outboxId()).stream().map(f -> new LoadStory.Failure(f.attempt(), when(start, f.failedAt()),
                mask.apply(f.failure()), f.parked())).toList()
                : List.of();
        return new LoadStory.Row(row.outboxId(), row.actionType(), row.channel().wire(), row.status().name().toLowerCase(Locale.ROOT),
                row.attempts(), mask.apply(row.receipt()), mask.apply(row.lastFailure()), when(start, row.createdAt()),
                when(start, row.dispatchedAt()), when(start, row.deadAt()), mask.apply(row.payload()), failures, trace(row.traceparent()));
    }

    private LoadStory.TimerLine timer(Timer timer, Instant start) {
        return new LoadStory.TimerLine(timer.timerId().toString(), timer.status().name().toLowerCase(Locale.ROOT),
                when(start, timer.fireAt()), when(start, timer.firedAt()), when(start, timer.cancelledAt()), trace(timer.traceparent()));
    }

    /** The trace of a W3C {@code traceparent} ({@code 00-<trace id>-<span id>-<flags>}), linked where a viewer is configured. */
    LoadStory.TraceLink trace(String traceparent) {
        if (traceparent == null || traceparent.length() < 35) {
            return LoadStory.TraceLink.NONE;
        }
        String traceId = traceparent.substring(3, 35);
        return new LoadStory.TraceLink(traceId, config.traceUrl().map(url -> url.replace("{traceId}", traceId)).orElse(null));
    }

    /** Who decided: the filter, the SOP, or a model (which, what it cost, and why the SOP took over when it did). */
    private static String decidedBy(DecisionRecorded decision) {
        if (decision.filtered()) {
            return "decided by the filter";
        }
        Provenance p = decision.provenance();
        if (p == null) {
            return "decided by sop";
        }
        if (!p.askedModel()) {
            return "decided by " + p.decidedBy();
        }
        return "decided by " + p.decidedBy() + " (model " + p.model() + ", prompt " + p.promptHash() + ", "
                + (p.tokensIn() + p.tokensOut()) + " tokens, " + p.latencyMillis() + " ms"
                + (p.note() == null ? "" : "; " + p.note()) + ")";
    }

    /** The SOP version the decision followed, when it names one. */
    private static String sop(DecisionRecorded decision) {
        if (decision.sop() == null) {
            return "";
        }
        return decision.sop().stored() ? " under SOP version " + decision.sop().version() + " of " + decision.sop().clientId()
                : " under the configured SOP" + (decision.sop().clientId() == null ? "" : " of " + decision.sop().clientId());
    }

    /** {@code key: value} pairs of a payload, in their order. */
    private static String fields(JsonNode payload) {
        List<String> pairs = new ArrayList<>();
        payload.properties().forEach(field -> pairs.add(field.getKey() + ": "
                + (field.getValue().isValueNode() ? field.getValue().asText() : field.getValue().toString())));
        return String.join(", ", pairs);
    }

    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
