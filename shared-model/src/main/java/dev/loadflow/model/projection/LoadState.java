package dev.loadflow.model.projection;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.LogArchived;
import dev.loadflow.model.event.MessageSkipped;
import dev.loadflow.model.event.OutcomeStatus;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import org.pcollections.HashTreePSet;
import org.pcollections.MapPSet;
import org.pcollections.OrderedPMap;
import org.pcollections.OrderedPSet;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The state of one load, projected from its log and nothing else: who it belongs to, its
 * stage, its open asks with their step, the outcomes of its actions, and the events already
 * processed. {@code version} is the log version it was projected from.
 *
 * <p>A load's assignment (client, driver, stage) belongs to the source that first assigned it
 * ({@code assignedBy}): a {@code LoadAssigned} from any other source is logged, and changes
 * nothing ({@link #refusesAssignmentBy}).
 *
 * <p>The collections are persistent (pcollections): {@link #plus} shares everything it does
 * not change with the state it starts from, so folding a few new entries into a load with a
 * long history costs the few entries, not a copy of the history (a copy made a busy load's
 * every run slower than the last). The maps and the closed asks keep insertion order.
 */
public record LoadState(String loadId, long version, String clientId, String driverPhone, String stage,
                        String assignedBy, Map<String, OpenAsk> openAsks, Set<String> closedAsks,
                        Map<String, List<OutcomeStatus>> outcomes, Set<String> processedEventIds) {

    public LoadState {
        openAsks = openAsks instanceof OrderedPMap<String, OpenAsk> p ? p : OrderedPMap.from(openAsks);
        closedAsks = closedAsks instanceof OrderedPSet<String> p ? p : OrderedPSet.from(closedAsks);
        outcomes = outcomes instanceof OrderedPMap<String, List<OutcomeStatus>> p ? p : copyOf(outcomes);
        processedEventIds = processedEventIds instanceof MapPSet<String> p ? p : HashTreePSet.from(processedEventIds);
    }

    private static OrderedPMap<String, List<OutcomeStatus>> copyOf(Map<String, List<OutcomeStatus>> outcomes) {
        OrderedPMap<String, List<OutcomeStatus>> copy = OrderedPMap.empty();
        for (Map.Entry<String, List<OutcomeStatus>> e : outcomes.entrySet()) {
            copy = copy.plus(e.getKey(), List.copyOf(e.getValue()));
        }
        return copy;
    }

    /** Folds a whole log into state, entry by entry, in log order. */
    public static LoadState project(LoadLog log) {
        return fold(new Fold(log.loadId()), log.entries(), log.version());
    }

    /**
     * This state with the entries that follow it folded in: the same state as projecting the
     * whole log, without reading or decoding what was already folded.
     *
     * @param newer the entries after {@link #version}, in log order, without gaps
     */
    public LoadState plus(List<RecordedEntry> newer) {
        if (newer.isEmpty()) {
            return this;
        }
        if (newer.getFirst().seq() != version + 1) {
            throw new IllegalArgumentException("load " + loadId + " is at version " + version
                    + " but the entries to fold start at seq " + newer.getFirst().seq());
        }
        return fold(new Fold(this), newer, newer.getLast().seq());
    }

    private static LoadState fold(Fold fold, List<RecordedEntry> entries, long version) {
        for (RecordedEntry recorded : entries) {
            switch (recorded.entry()) {
                case InboundEvent event -> fold.apply(event);
                case DecisionRecorded decision -> fold.apply(decision);
                case MessageSkipped skipped -> fold.apply(skipped);
                case LogArchived archived -> { } // where earlier entries are kept changes no state
            }
        }
        return fold.state(version);
    }

    public boolean hasProcessed(String eventId) {
        return processedEventIds.contains(eventId);
    }

    /** Whether the load has been assigned (to a client and a driver). */
    public boolean isAssigned() {
        return clientId != null;
    }

    /**
     * Whether an assignment by {@code source} is refused: the load was assigned, by another source
     * (only the source that assigned a load may re-assign it).
     */
    public boolean refusesAssignmentBy(String source) {
        return isAssigned() && !Objects.equals(source, assignedBy);
    }

    public Optional<OpenAsk> openAsk(String askId) {
        return Optional.ofNullable(openAsks.get(askId));
    }

    /** Whether the fired timer belongs to the current step of an ask that is still open. */
    public boolean isTimerCurrent(EventPayload.TimerFired fired) {
        return openAsk(fired.askId()).map(ask -> ask.isTimerCurrent(fired)).orElse(false);
    }

    /** Whether any outcome of the outbox row {@code outboxId} says it was delivered. */
    public boolean wasDelivered(String outboxId) {
        return outcomes.getOrDefault(outboxId, List.of()).contains(OutcomeStatus.DELIVERED);
    }

    private static final class Fold {
        private final String loadId;
        private String clientId;
        private String driverPhone;
        private String stage;
        private String assignedBy;
        private OrderedPMap<String, OpenAsk> open;
        private OrderedPSet<String> closed;
        private OrderedPMap<String, List<OutcomeStatus>> outcomes;
        private MapPSet<String> processed;

        Fold(String loadId) {
            this.loadId = loadId;
            this.open = OrderedPMap.empty();
            this.closed = OrderedPSet.empty();
            this.outcomes = OrderedPMap.empty();
            this.processed = HashTreePSet.empty();
        }

        /** Carries on from {@code state}, sharing its collections (the record holds persistent ones). */
        Fold(LoadState state) {
            this.loadId = state.loadId();
            this.clientId = state.clientId();
            this.driverPhone = state.driverPhone();
            this.stage = state.stage();
            this.assignedBy = state.assignedBy();
            this.open = (OrderedPMap<String, OpenAsk>) state.openAsks();
            this.closed = (OrderedPSet<String>) state.closedAsks();
            this.outcomes = (OrderedPMap<String, List<OutcomeStatus>>) state.outcomes();
            this.processed = (MapPSet<String>) state.processedEventIds();
        }

        void apply(InboundEvent event) {
            processed = processed.plus(event.eventId());
            switch (event.payload()) {
                case EventPayload.LoadAssigned assigned -> {
                    if (clientId == null || Objects.equals(event.source(), assignedBy)) {
                        clientId = assigned.clientId();
                        driverPhone = assigned.driverPhone();
                        stage = assigned.stage();
                        assignedBy = event.source();
                    }
                }
                case EventPayload.ActionOutcome outcome -> outcomes = outcomes.plus(outcome.outboxId(),
                        appended(outcomes.get(outcome.outboxId()), outcome.status()));
                case EventPayload.LocationPing ping -> { }
                case EventPayload.InboundSms sms -> { }
                case EventPayload.TimerFired fired -> { }
                // an added event type is processed and changes nothing else here
                case EventPayload.Extension extension -> { }
            }
        }

        /** A skipped message counts as processed: it took its place in the log, and changes nothing else. */
        void apply(MessageSkipped skipped) {
            processed = processed.plus(skipped.messageId());
        }

        void apply(DecisionRecorded decision) {
            Instant at = decision.decidedAt();
            int sopVersion = decision.sop() == null ? 0 : decision.sop().version();
            for (Action action : decision.actions()) {
                switch (action) {
                    case Action.SendSms sms -> step(sms.askId().toString(), sms.attempt(), null, at, sopVersion);
                    case Action.SetTimer timer -> step(timer.timerId().askId().toString(), timer.attempt(), timer.timerId(),
                            at, sopVersion);
                    case Action.UpdateStage update -> stage = update.stage();
                    case Action.CancelTimer cancel -> { }
                    case Action.CreateHeroTask task -> { }
                    case Action.PostHeroSlack post -> { }
                    case Action.StageChanged changed -> { }
                    // an added action type changes no ask or stage of the built-in projection
                    case Action.Extension extension -> { }
                }
            }
            for (String askId : decision.closedAsks()) {
                open = open.minus(askId);
                closed = closed.plus(askId);
            }
        }

        /** An ask's step taken at {@code at}; a new ask keeps {@code sopVersion}, the version that opened it. */
        private void step(String askId, int attempt, TimerId timer, Instant at, int sopVersion) {
            if (closed.contains(askId)) {
                return;
            }
            OpenAsk current = open.get(askId);
            if (current == null) {
                open = open.plus(askId, new OpenAsk(AskId.parse(askId), attempt, timer, at, at, sopVersion));
            } else if (attempt > current.step()) {
                open = open.plus(askId, new OpenAsk(current.askId(), attempt, timer, current.openedAt(), at,
                        current.sopVersion()));
            } else if (attempt == current.step() && timer != null) {
                // the step's own timer after the SMS hours' wait: the text goes out now
                Instant taken = current.waitsForWindow() && !timer.window() ? at : current.stepTakenAt();
                open = open.plus(askId, new OpenAsk(current.askId(), attempt, timer, current.openedAt(), taken,
                        current.sopVersion()));
            }
        }

        /** A row's outcomes so far and one more (a row has a handful at most). */
        private static List<OutcomeStatus> appended(List<OutcomeStatus> so, OutcomeStatus status) {
            List<OutcomeStatus> all = new ArrayList<>(so == null ? List.of() : so);
            all.add(status);
            return List.copyOf(all);
        }

        LoadState state(long version) {
            return new LoadState(loadId, version, clientId, driverPhone, stage, assignedBy, open, closed, outcomes, processed);
        }
    }
}
