package dev.loadflow.worker.agent;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.policy.Decision;
import dev.loadflow.model.policy.SopRules;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.worker.example.DoorOpened;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static dev.loadflow.testing.Fixtures.decision;
import static dev.loadflow.testing.Fixtures.etaAsk;
import static dev.loadflow.testing.Fixtures.ping;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the guard rails let a model do, and the words they refuse the rest with. */
class GuardRailsTest {

    private static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");
    private static final String LOAD = "481207";
    private static final String DRIVER = "+15550100";
    private static final SopRules RULES = new SopRules(Duration.ofMinutes(30), 3, "ETA? ({attempt})", "#hero-desk");
    private static final InboundEvent ASSIGNED = new InboundEvent("assign_1", LOAD, T0, T0, "c-1", null,
            new EventPayload.LoadAssigned("client-a", DRIVER, "dispatched"));

    private static LoadState state(List<? extends dev.loadflow.model.event.LogEntry> entries) {
        List<RecordedEntry> recorded = new ArrayList<>();
        for (var entry : entries) {
            recorded.add(new RecordedEntry(recorded.size() + 1, T0, entry));
        }
        return LoadState.project(new LoadLog(LOAD, recorded.size(), recorded));
    }

    private static final LoadState ASSIGNED_ONLY = state(List.of(ASSIGNED));

    private static LoadState askOpen() {
        InboundEvent ping = ping(LOAD, "ping_0700", T0);
        return state(List.of(ASSIGNED, DecisionRecorded.decided(ASSIGNED, T0, List.of(), false, "assigned", List.of()),
                ping, decision(ping, T0, etaAsk(ping, T0))));
    }

    private static ToolCall call(String name, String arguments) {
        return new ToolCall(name, arguments);
    }

    @Test
    void anEventOfAnAddedTypeMayBeHandedToAHeroOnceAndTextsNobody() {
        InboundEvent opened = new InboundEvent("door_0705", LOAD, T0, T0, "c-door", null, new DoorOpened("rear", false));

        Decision decision = GuardRails.check(List.of(call("create_hero_task",
                "{\"title\": \"Rear door opened, seal broken\", \"body\": \"Call the driver\", \"urgency\": \"urgent\"}")),
                null, opened, ASSIGNED_ONLY, RULES, T0);

        assertThat(decision.actions()).extracting(a -> a.key(LOAD).toString())
                .containsExactly(LOAD + "/evt:door_0705/1/create_hero_task");
        assertThat(decision.needsHeroTask()).isTrue();
        assertThatThrownBy(() -> GuardRails.check(List.of(call("send_sms", "{\"to\": \"+15550100\", \"text\": \"Door?\"}"),
                call("set_timer", "{\"after_seconds\": 900}")), null, opened, ASSIGNED_ONLY, RULES, T0))
                .isInstanceOf(RefusedAnswer.class).hasMessageContaining("this event is a DoorOpened");
    }

    @Test
    void anEtaRequestGetsTheSopsKeysWhateverTheModelCallsThem() {
        InboundEvent ping = ping(LOAD, "ping_0700", T0);

        Decision decision = GuardRails.check(List.of(call("send_sms", "{\"to\": \"+15550100\", \"text\": \"ETA?\"}"),
                call("set_timer", "{\"after_seconds\": 900}")), "asking", ping, ASSIGNED_ONLY, RULES, T0);

        assertThat(decision.actions()).extracting(a -> a.key(LOAD).toString())
                .containsExactly(LOAD + "/ask:eta_request:ping_0700/1/send_sms", LOAD + "/ask:eta_request:ping_0700/1/set_timer");
        assertThat(((Action.SetTimer) decision.actions().get(1)).fireAt()).isEqualTo(T0.plusSeconds(900));
        assertThat(decision.reason()).isEqualTo("asking");
    }

    @Test
    void whatBreaksTheClientsRulesIsRefusedWithWordsTheModelCanActOn() {
        InboundEvent ping = ping(LOAD, "ping_0900", T0);
        String sms = "{\"to\": \"+15550100\", \"text\": \"ETA?\"}";

        assertThatThrownBy(() -> GuardRails.check(List.of(call("send_sms", sms)), null, ping, ASSIGNED_ONLY, RULES, T0))
                .isInstanceOf(RefusedAnswer.class).hasMessageContaining("one send_sms with one set_timer");
        assertThatThrownBy(() -> GuardRails.check(List.of(call("send_sms", sms), call("set_timer", "{\"after_seconds\": 3601}")),
                null, ping, ASSIGNED_ONLY, RULES, T0)).hasMessageContaining("between 1 and 3600");
        assertThatThrownBy(() -> GuardRails.check(List.of(call("send_sms", sms), call("set_timer", "{\"after_seconds\": 60}")),
                null, ping, askOpen(), RULES, T0)).hasMessageContaining("already open");
        assertThatThrownBy(() -> GuardRails.check(List.of(call("cancel_timer", "{\"ask_id\": \"ask:eta_request:nope\"}")),
                null, ping, askOpen(), RULES, T0)).hasMessageContaining("is not open");
        assertThatThrownBy(() -> GuardRails.check(List.of(call("create_hero_task",
                        "{\"title\": \"t\", \"body\": \"b\", \"urgency\": \"urgent\"}")), null, ping, ASSIGNED_ONLY, RULES, T0))
                .hasMessageContaining("create_hero_task answers");
        assertThatThrownBy(() -> GuardRails.check(List.of(call("update_stage", "{\"stage\": \"delivered\"}")),
                null, ping, ASSIGNED_ONLY, RULES, T0)).hasMessageContaining("update_stage follows a new assignment");
        assertThatThrownBy(() -> GuardRails.check(List.of(call("send_sms", "{\"to\": 15550100}"), call("set_timer", "{}")),
                null, ping, ASSIGNED_ONLY, RULES, T0)).hasMessageContaining("needs 'to', a non-empty string");
        assertThatThrownBy(() -> GuardRails.check(List.of(call("send_sms", "not json")), null, ping, ASSIGNED_ONLY, RULES, T0))
                .hasMessageContaining("not JSON");
    }

    @Test
    void theDriversAnswerClosesTheAsksTheModelNames() {
        InboundEvent sms = new InboundEvent("sms_0710", LOAD, T0, T0, "c-2", null, new EventPayload.InboundSms(DRIVER, "ETA 9:30"));

        Decision decision = GuardRails.check(List.of(call("cancel_timer", "{\"ask_id\": \"ask:eta_request:ping_0700\"}"),
                call("post_hero_slack", "{\"ask_id\": \"ask:eta_request:ping_0700\", \"text\": \"ETA 9:30\"}")), "",
                sms, askOpen(), RULES, T0);

        assertThat(decision.closedAsks()).containsExactly("ask:eta_request:ping_0700");
        assertThat(decision.actions()).extracting(a -> a.type().wire()).containsExactly("cancel_timer", "post_hero_slack");
        assertThat(((Action.PostHeroSlack) decision.actions().get(1)).channel()).as("the client's channel, not the model's")
                .isEqualTo("#hero-desk");
        assertThat(decision.reason()).isEqualTo("llm: cancel_timer, post_hero_slack");
    }

    @ParameterizedTest(name = "{0} twice for one ask")
    @ValueSource(strings = {"post_hero_slack", "cancel_timer"})
    void oneAnswerCallingAToolTwiceForTheSameAskIsRefusedBeforeAnythingIsAppended(String tool) {
        InboundEvent sms = new InboundEvent("sms_0710", LOAD, T0, T0, "c-2", null, new EventPayload.InboundSms(DRIVER, "ETA 9:30"));
        String args = "{\"ask_id\": \"ask:eta_request:ping_0700\", \"text\": \"ETA 9:30\"}";

        assertThatThrownBy(() -> GuardRails.check(List.of(call(tool, args), call(tool, args)), "", sms, askOpen(), RULES, T0))
                .isInstanceOf(RefusedAnswer.class)
                .hasMessage(tool + " is called once per ask; this answer calls it twice for ask:eta_request:ping_0700");
    }

    /** Texts from 06:00 to 21:00 in Chicago; the second attempt urgent, waiting 10 minutes; asks on high and medium risk. */
    private static final SopRules HOURS = new SopRules("Acme Foods", java.time.ZoneId.of("America/Chicago"),
            new SopRules.SmsHours(java.time.LocalTime.of(6, 0), java.time.LocalTime.of(21, 0)),
            java.util.EnumSet.of(dev.loadflow.model.event.Risk.HIGH, dev.loadflow.model.event.Risk.MEDIUM),
            List.of(new SopRules.Attempt(Duration.ofMinutes(30), "ETA?", false), new SopRules.Attempt(Duration.ofMinutes(10), "Now?", true)),
            SopRules.DEFAULT_MAX_SEGMENTS, dev.loadflow.model.action.Urgency.URGENT, "#acme", List.of());

    @Test
    void theModelsTextOutsideTheSmsHoursWaitsForThemAndAnUrgentAttemptGoes() {
        Instant night = Instant.parse("2026-12-07T08:00:00Z"); // 02:00 in Chicago
        InboundEvent ping = ping(LOAD, "ping_0200", night);
        String sms = "{\"to\": \"+15550100\", \"text\": \"ETA at 2 am?\"}";

        Decision decision = GuardRails.check(List.of(call("send_sms", sms), call("set_timer", "{\"after_seconds\": 1800}")),
                null, ping, ASSIGNED_ONLY, HOURS, night);

        assertThat(decision.actions()).singleElement().isInstanceOfSatisfying(Action.SetTimer.class, timer -> {
            assertThat(timer.timerId().window()).isTrue();
            assertThat(timer.fireAt()).as("06:00 in Chicago").isEqualTo(Instant.parse("2026-12-07T12:00:00Z"));
        });
        InboundEvent fired = new InboundEvent("evt:tmr:481207:ask:eta_request:ping_0700:1", LOAD, night, night, "c-1", null,
                new EventPayload.TimerFired("tmr:481207:ask:eta_request:ping_0700:1", "ask:eta_request:ping_0700", 1, night));
        Decision urgent = GuardRails.check(List.of(call("send_sms", sms), call("set_timer", "{\"after_seconds\": 600}")),
                null, fired, askOpen(), HOURS, night);
        assertThat(urgent.actions()).extracting(a -> a.type().wire()).containsExactly("send_sms", "set_timer");
        assertThatThrownBy(() -> GuardRails.check(List.of(call("send_sms", sms), call("set_timer", "{\"after_seconds\": 1201}")),
                null, fired, askOpen(), HOURS, night)).hasMessageContaining("between 1 and 1200 (twice the wait of attempt 2)");
    }

    @Test
    void theModelOpensAnAskOnlyOnTheRisksTheSopAsksOnAndNeverPastItsAttempts() {
        InboundEvent low = new InboundEvent("ping_low", LOAD, T0, T0, "c-1", null,
                new EventPayload.LocationPing(dev.loadflow.model.event.Risk.LOW, 41.9, -87.6));
        String sms = "{\"to\": \"+15550100\", \"text\": \"ETA?\"}";
        InboundEvent fired = new InboundEvent("evt:tmr:481207:ask:eta_request:ping_0700:1", LOAD, T0, T0, "c-1", null,
                new EventPayload.TimerFired("tmr:481207:ask:eta_request:ping_0700:1", "ask:eta_request:ping_0700", 1, T0));
        SopRules oneAttempt = new SopRules(Duration.ofMinutes(30), 1, "ETA?", "#hero-desk");

        assertThatThrownBy(() -> GuardRails.check(List.of(call("send_sms", sms), call("set_timer", "{\"after_seconds\": 60}")),
                null, low, ASSIGNED_ONLY, HOURS, T0)).hasMessageContaining("this one is low");
        assertThatThrownBy(() -> GuardRails.check(List.of(call("send_sms", sms), call("set_timer", "{\"after_seconds\": 60}")),
                null, fired, askOpen(), oneAttempt, T0)).hasMessageContaining("exceeds the client's max-attempts (1)");
    }
}
