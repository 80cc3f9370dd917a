package dev.loadflow.worker.policy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.json.ActionCodec;
import dev.loadflow.model.json.SmsSegments;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.model.policy.Decisions;
import dev.loadflow.model.policy.SopBook;
import dev.loadflow.model.policy.SopPolicy;
import dev.loadflow.model.policy.SopRules;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.service.admin.SopAnswers;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a proposed SOP would do on one load, written nowhere: each attempt's text as the load's driver
 * would get it, and, event by event through the load's history so far, what the proposed SOP would
 * have decided on the state the load was in, next to what was decided. The state each event met is
 * the one the load's log projects (the decisions actually taken), so each line answers "what if
 * this event had met the proposed SOP".
 */
public final class SopPreview {

    /** The most events of a load's history a preview goes through: the latest. */
    public static final int MAX_EVENTS = 500;

    private SopPreview() {
    }

    /** What {@code rules}, as {@code clientId}'s SOP, would do on the load of {@code log}. */
    public static SopAnswers.Preview of(String clientId, SopRules rules, LoadLog log) {
        List<RecordedEntry> entries = log.entries();
        Map<String, DecisionRecorded> decided = new HashMap<>();
        for (RecordedEntry recorded : entries) {
            if (recorded.entry() instanceof DecisionRecorded decision) {
                decided.put(decision.eventId(), decision);
            }
        }
        SopBook proposed = SopBook.configured(client -> rules);
        DecisionPolicy policy = new SopPolicy(proposed);
        List<SopAnswers.Line> lines = new ArrayList<>();
        LoadState state = null;
        int inbound = (int) entries.stream().filter(e -> e.entry() instanceof InboundEvent).count();
        int skip = Math.max(0, inbound - MAX_EVENTS);
        for (RecordedEntry recorded : entries) {
            if (recorded.entry() instanceof InboundEvent event && skip-- <= 0) {
                LoadState before = state == null ? LoadState.project(new LoadLog(log.loadId(), recorded.seq() - 1, List.of())) : state;
                DecisionRecorded actual = decided.get(event.eventId());
                Instant at = actual == null ? event.receivedAt() : actual.decidedAt();
                SopAnswers.Outcome would = outcome(Decisions.decide(before, event, policy, at), "proposed");
                SopAnswers.Outcome was = actual == null ? null : outcome(actual, actual.sop() == null ? null : actual.sop().toString());
                lines.add(new SopAnswers.Line(event.eventId(), event.type().wire(), at, was, would,
                        was == null || !was.actions().equals(would.actions())));
            }
            state = state == null ? LoadState.project(new LoadLog(log.loadId(), recorded.seq(), List.of(recorded)))
                    : state.plus(List.of(recorded));
        }
        LoadState now = state == null ? LoadState.project(log) : state;
        List<SopAnswers.Text> texts = new ArrayList<>();
        for (int n = 1; n <= rules.maxAttempts(); n++) {
            String text = rules.text(n, log.loadId(), now.stage());
            SmsSegments segments = SmsSegments.of(text);
            texts.add(new SopAnswers.Text(n, text, segments.encoding(), segments.segments(), rules.attempt(n).urgent()));
        }
        return new SopAnswers.Preview(clientId, log.loadId(), texts, lines);
    }

    private static SopAnswers.Outcome outcome(DecisionRecorded decision, String sop) {
        List<JsonNode> actions = new ArrayList<>();
        for (Action action : decision.actions()) {
            actions.add(ActionCodec.encode(action));
        }
        return new SopAnswers.Outcome((decision.filtered() ? "filtered: " : "") + decision.reason(), actions, sop);
    }
}
