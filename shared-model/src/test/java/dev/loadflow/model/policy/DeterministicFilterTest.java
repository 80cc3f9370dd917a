package dev.loadflow.model.policy;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.ActionType;
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
import dev.loadflow.model.projection.LoadState;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What never reaches the policy, and what always does. */
class DeterministicFilterTest {

    private static final String LOAD = "481207";
    private static final Instant T = Instant.parse("2026-11-30T07:01:00Z");
    private static final AskId ASK = AskId.of("eta_request", "ping_0700");
    private static final SopPolicy SOP = new SopPolicy(client -> new SopRules(Duration.ofMinutes(30), 3,
            "ETA for {loadId}? (attempt {attempt})", "#hero-desk"));

    private final List<LogEntry> log = new ArrayList<>();

    private LoadState state() {
        List<RecordedEntry> entries = new ArrayList<>();
        log.forEach(e -> entries.add(new RecordedEntry(entries.size() + 1, T, e)));
        return LoadState.project(new LoadLog(LOAD, entries.size(), entries));
    }

    private static InboundEvent event(String id, EventPayload payload) {
        return new InboundEvent(id, LOAD, T, T, "c-1", null, payload);
    }

    /** Decides as the worker does ({@link Decisions#decide}: the filter, else the SOP), and logs the result. */
    private DecisionRecorded process(InboundEvent event) {
        return process(event, SOP);
    }

    private DecisionRecorded process(InboundEvent event, DecisionPolicy policy) {
        DecisionRecorded decision = Decisions.decide(state(), event, policy, T);
        log.add(event);
        log.add(decision);
        return decision;
    }

    private static InboundEvent fired(int attempt, String eventId) {
        TimerId timer = TimerId.of(LOAD, ASK, attempt);
        return event(eventId, new EventPayload.TimerFired(timer.toString(), ASK.toString(), attempt, T));
    }

    private static InboundEvent outcome(String outboxId, String type, OutcomeStatus status, boolean heroChannel) {
        return event("out:" + outboxId + ":" + status.wire(),
                new EventPayload.ActionOutcome(outboxId, type, status, null, "boom", heroChannel));
    }

    private void openAsk() {
        process(event("assign_1", new EventPayload.LoadAssigned("client-a", "+15550100", "dispatched")));
        DecisionRecorded opened = process(event("ping_0700", new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6)));
        assertThat(opened.actions()).extracting(Action::type).extracting(ActionType::name).containsExactly("SEND_SMS", "SET_TIMER");
        assertThat(((Action.SetTimer) opened.actions().get(1)).fireAt()).isEqualTo(T.plus(Duration.ofMinutes(30)));
        assertThat(((Action.SendSms) opened.actions().get(0)).text()).isEqualTo("ETA for 481207? (attempt 1)");
    }

    @Test
    void aTimerOfAPastStepIsFilteredEvenUnderANewEventId() {
        openAsk();
        assertThat(process(fired(1, "evt:tmr:481207:ask:eta_request:ping_0700:1")).filtered()).isFalse();

        DecisionRecorded late = process(fired(1, "late-copy-of-timer-1"));

        assertThat(late.filtered()).isTrue();
        assertThat(late.reason()).contains("stale timer").contains("step 2");
    }

    @Test
    void aTimerOfAnAnsweredAskIsFiltered() {
        openAsk();
        process(event("sms_1", new EventPayload.InboundSms("+15550100", "9:30")));

        DecisionRecorded late = process(fired(1, "evt:tmr:481207:ask:eta_request:ping_0700:1"));

        assertThat(late.filtered()).isTrue();
        assertThat(late.reason()).contains("not open");
    }

    @Test
    void aFilteredEventNeverReachesThePolicy() {
        openAsk();
        process(event("sms_1", new EventPayload.InboundSms("+15550100", "9:30")));
        DecisionPolicy refusing = (event, state, now) -> {
            throw new AssertionError("the policy was asked about " + event.eventId());
        };

        DecisionRecorded late = process(fired(1, "evt:tmr:481207:ask:eta_request:ping_0700:1"), refusing);

        assertThat(late.filtered()).isTrue();
        assertThat(late.actions()).isEmpty();
        assertThat(late.decidedAt()).isEqualTo(T);
    }

    @Test
    void deliveredOutcomesAndHeroChannelOrInternalFailuresAreFiltered() {
        openAsk();

        assertThat(process(outcome(LOAD + "/" + ASK + "/1/send_sms", "send_sms", OutcomeStatus.DELIVERED, false)).filtered()).isTrue();
        assertThat(process(outcome(LOAD + "/" + ASK + "/1/set_timer", "set_timer", OutcomeStatus.FAILED, false)).filtered()).isTrue();
        assertThat(process(outcome(LOAD + "/evt:x/1/create_hero_task", "create_hero_task", OutcomeStatus.FAILED, true)).filtered()).isTrue();
        assertThat(process(outcome(LOAD + "/stage/1/stage_changed", "stage_changed", OutcomeStatus.FAILED, false)).filtered())
                .as("a failed fan-out event type").isTrue();
    }

    @Test
    void aFailedSmsReachesThePolicyUnlessTheSameRowWasDelivered() {
        openAsk();
        String sms = LOAD + "/" + ASK + "/1/send_sms";
        process(outcome(sms, "send_sms", OutcomeStatus.DELIVERED, false));

        DecisionRecorded lateFailure = process(outcome(sms, "send_sms", OutcomeStatus.FAILED, false));

        assertThat(lateFailure.filtered()).isFalse();
        assertThat(lateFailure.actions()).as("late FAILED next to DELIVERED").isEmpty();
        assertThat(lateFailure.reason()).contains("also delivered");
    }

    @Test
    void aHighRiskPingBeforeTheAssignmentGoesToAHero() {
        DecisionRecorded decision = process(event("ping_early", new EventPayload.LocationPing(Risk.HIGH, 1, 1)));

        assertThat(decision.needsHeroTask()).isTrue();
        assertThat(decision.actions()).singleElement().satisfies(a ->
                assertThat(a.key(LOAD).toString()).isEqualTo("481207/evt:ping_early/1/create_hero_task"));
    }

    @Test
    void aDuplicateKeyFallbackIsOneHeroTaskKeyedByTheEvent() {
        InboundEvent event = event("ping_0700", new EventPayload.LocationPing(Risk.HIGH, 1, 1));

        DecisionRecorded fallback = Decisions.afterDuplicateKey(event, List.of("481207/ask:x:y/1/send_sms"), T);

        assertThat(fallback.actions()).singleElement().satisfies(a ->
                assertThat(a.key(LOAD).toString()).isEqualTo("481207/evt:ping_0700/1/create_hero_task"));
        assertThat(fallback.needsHeroTask()).isTrue();
        assertThat(fallback.filtered()).isFalse();
        assertThat(fallback.reason()).startsWith("duplicate action key");
    }
}
