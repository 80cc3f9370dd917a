package dev.loadflow.model.projection;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.event.OutcomeStatus;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The projection of the ADR's story: ask opened at 07:01, step 2 at 07:31, answered at 07:40. */
class LoadStateTest {

    private static final String LOAD = "481207";
    private static final Instant T0701 = Instant.parse("2026-11-30T07:01:00Z");
    private static final AskId ASK = AskId.of("eta_request", "ping_0700");
    private static final TimerId TIMER_1 = TimerId.of(LOAD, ASK, 1);
    private static final TimerId TIMER_2 = TimerId.of(LOAD, ASK, 2);

    private final List<LogEntry> log = new ArrayList<>();

    private LoadState project() {
        List<RecordedEntry> entries = new ArrayList<>();
        for (LogEntry entry : log) {
            entries.add(new RecordedEntry(entries.size() + 1, T0701, entry));
        }
        return LoadState.project(new LoadLog(LOAD, entries.size(), entries));
    }

    private InboundEvent event(String id, EventPayload payload) {
        return new InboundEvent(id, LOAD, T0701, T0701, "c-1", null, payload);
    }

    private void decide(InboundEvent event, Instant at, List<Action> actions, List<String> closed) {
        log.add(event);
        log.add(DecisionRecorded.decided(event, at, actions, false, "test", closed));
    }

    private static EventPayload.TimerFired fired(TimerId timer) {
        return new EventPayload.TimerFired(timer.toString(), ASK.toString(), timer.attempt(), T0701);
    }

    private void openAskAtStepOne() {
        log.add(event("assign", new EventPayload.LoadAssigned("client-a", "+15550100", "dispatched")));
        log.add(DecisionRecorded.filtered((InboundEvent) log.get(0), T0701, "no ask"));
        decide(event("ping_0700", new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6)), T0701, List.of(
                new Action.SendSms(ASK, 1, "+15550100", "ETA?"),
                new Action.SetTimer(TIMER_1, T0701.plus(Duration.ofMinutes(30)))), List.of());
    }

    @Test
    void aNewLoadHasNothing() {
        LoadState state = project();

        assertThat(state.version()).isZero();
        assertThat(state.openAsks()).isEmpty();
        assertThat(state.clientId()).isNull();
    }

    @Test
    void assignmentAndAnOpenedAskAreProjected() {
        openAskAtStepOne();

        LoadState state = project();

        assertThat(state.version()).isEqualTo(4);
        assertThat(state.clientId()).isEqualTo("client-a");
        assertThat(state.driverPhone()).isEqualTo("+15550100");
        assertThat(state.stage()).isEqualTo("dispatched");
        assertThat(state.hasProcessed("ping_0700")).isTrue();
        assertThat(state.openAsk(ASK.toString())).hasValueSatisfying(ask -> {
            assertThat(ask.step()).isEqualTo(1);
            assertThat(ask.currentTimer()).isEqualTo(TIMER_1);
            assertThat(ask.openedAt()).isEqualTo(T0701);
        });
    }

    /**
     * Two sources' assignments queued before either was logged: the first logged owns the load, the
     * other is logged, filtered (nobody is told) and changes nothing; the owner may still re-assign.
     */
    @Test
    void onlyTheSourceThatAssignedALoadReassignsIt() {
        InboundEvent first = event("assign_north", new EventPayload.LoadAssigned("client-a", "+15550100", "dispatched"))
                .withSource("tms-north");
        InboundEvent rival = event("assign_south", new EventPayload.LoadAssigned("client-c", "+15559999", "delivered"))
                .withSource("tms-south");
        InboundEvent again = event("assign_north_2", new EventPayload.LoadAssigned("client-b", "+15550101", "in_transit"))
                .withSource("tms-north");
        log.add(first);
        log.add(DecisionRecorded.filtered(first, T0701, "assigned"));

        LoadState assigned = project();
        assertThat(assigned.assignedBy()).isEqualTo("tms-north");
        assertThat(assigned.refusesAssignmentBy("tms-south")).isTrue();
        assertThat(assigned.refusesAssignmentBy("tms-north")).isFalse();
        assertThat(dev.loadflow.model.policy.DeterministicFilter.filter(rival, assigned))
                .hasValueSatisfying(reason -> assertThat(reason).contains("refused", "tms-north", "tms-south"));

        log.add(rival);
        log.add(DecisionRecorded.filtered(rival, T0701, "refused"));
        LoadState afterRival = project();
        assertThat(afterRival.hasProcessed("assign_south")).isTrue();
        assertThat(afterRival.clientId()).isEqualTo("client-a");
        assertThat(afterRival.driverPhone()).isEqualTo("+15550100");
        assertThat(afterRival.stage()).isEqualTo("dispatched");

        log.add(again);
        LoadState reassigned = project();
        assertThat(reassigned.clientId()).isEqualTo("client-b");
        assertThat(reassigned.driverPhone()).isEqualTo("+15550101");
        assertThat(reassigned.assignedBy()).isEqualTo("tms-north");
    }

    @Test
    void theTimerOfTheCurrentStepIsCurrentAndAPassedStepsTimerIsStale() {
        openAskAtStepOne();
        assertThat(project().isTimerCurrent(fired(TIMER_1))).isTrue();

        Instant t0731 = T0701.plus(Duration.ofMinutes(30));
        decide(event(TIMER_1.firedEventId(), fired(TIMER_1)), t0731, List.of(
                new Action.SendSms(ASK, 2, "+15550100", "ETA?"),
                new Action.SetTimer(TIMER_2, t0731.plus(Duration.ofMinutes(30)))), List.of());
        LoadState state = project();

        assertThat(state.openAsk(ASK.toString()).orElseThrow().step()).isEqualTo(2);
        assertThat(state.openAsk(ASK.toString()).orElseThrow().stepTakenAt()).isEqualTo(t0731);
        assertThat(state.isTimerCurrent(fired(TIMER_1))).as("a second copy of timer 1").isFalse();
        assertThat(state.isTimerCurrent(fired(TIMER_2))).isTrue();
    }

    @Test
    void anAnsweredAskIsClosedAndItsTimerIsStale() {
        openAskAtStepOne();
        decide(event("sms_0740", new EventPayload.InboundSms("+15550100", "ETA 9:30")), T0701,
                List.of(new Action.CancelTimer(TIMER_1)), List.of(ASK.toString()));

        LoadState state = project();

        assertThat(state.openAsks()).isEmpty();
        assertThat(state.closedAsks()).containsExactly(ASK.toString());
        assertThat(state.isTimerCurrent(fired(TIMER_1))).isFalse();
    }

    @Test
    void outcomesAreKeptPerOutboxRowAndStageUpdatesApply() {
        openAskAtStepOne();
        String sms = TIMER_1.loadId() + "/" + ASK + "/1/send_sms";
        log.add(InboundEvent.actionOutcome(LOAD, new EventPayload.ActionOutcome(sms, "send_sms",
                OutcomeStatus.FAILED, null, "timeout", false), T0701, "c-1"));
        log.add(InboundEvent.actionOutcome(LOAD, new EventPayload.ActionOutcome(sms, "send_sms",
                OutcomeStatus.DELIVERED, "m-1", null, false), T0701, "c-1"));
        decide(event("arrived", new EventPayload.InboundSms("+15550100", "here")), T0701,
                List.of(new Action.UpdateStage(ASK.toString(), 1, "at_pickup")), List.of());

        LoadState state = project();

        assertThat(state.outcomes().get(sms)).containsExactly(OutcomeStatus.FAILED, OutcomeStatus.DELIVERED);
        assertThat(state.wasDelivered(sms)).isTrue();
        assertThat(state.wasDelivered("other")).isFalse();
        assertThat(state.stage()).isEqualTo("at_pickup");
    }

    @Test
    void foldingTheNewerEntriesOntoAnEarlierStateGivesTheWholeLogsProjection() {
        openAskAtStepOne();
        String sms = TIMER_1.loadId() + "/" + ASK + "/1/send_sms";
        log.add(InboundEvent.actionOutcome(LOAD, new EventPayload.ActionOutcome(sms, "send_sms",
                OutcomeStatus.FAILED, null, "timeout", false), T0701, "c-1"));
        List<RecordedEntry> entries = new ArrayList<>();
        for (LogEntry entry : log) {
            entries.add(new RecordedEntry(entries.size() + 1, T0701, entry));
        }
        LoadState early = LoadState.project(new LoadLog(LOAD, 4, entries.subList(0, 4)));
        decide(event("sms_0740", new EventPayload.InboundSms("+15550100", "ETA 9:30")), T0701,
                List.of(new Action.CancelTimer(TIMER_1)), List.of(ASK.toString()));
        for (LogEntry entry : log.subList(entries.size(), log.size())) {
            entries.add(new RecordedEntry(entries.size() + 1, T0701, entry));
        }

        LoadState folded = early.plus(entries.subList(4, entries.size()));

        assertThat(folded).isEqualTo(project());
        assertThat(folded.version()).isEqualTo(entries.size());
        assertThat(early.openAsks()).as("the earlier state is left as it was").containsOnlyKeys(ASK.toString());
        assertThat(early.outcomes()).isEmpty();
    }

    @Test
    void entriesThatDoNotFollowTheStatesVersionAreRefused() {
        openAskAtStepOne();
        LoadState state = project();

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> state.plus(List.of(
                new RecordedEntry(state.version() + 2, T0701, event("late", new EventPayload.InboundSms("+1", "x"))))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
