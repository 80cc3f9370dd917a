package dev.loadflow.model.policy;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Urgency;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.event.SopRef;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.model.json.LogCodec;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.model.projection.LoadState;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The SOP's rules on one load's log: SMS hours, per-attempt texts, risk levels, and the version an ask keeps. */
class SopPolicyTest {

    private static final String LOAD = "L-77";
    private static final String CLIENT = "acme";
    private static final ZoneId CHICAGO = ZoneId.of("America/Chicago");
    /** 02:00 in Chicago (08:00 UTC on a winter day): outside SMS hours of 06:00 to 21:00. */
    private static final Instant NIGHT = Instant.parse("2026-12-07T08:00:00Z");
    /** 10:00 in Chicago. */
    private static final Instant DAY = Instant.parse("2026-12-07T16:00:00Z");

    private static SopRules rules(String first, String second, boolean secondUrgent, Set<Risk> askOn, Urgency priority) {
        return new SopRules("Acme Foods", CHICAGO, new SopRules.SmsHours(LocalTime.of(6, 0), LocalTime.of(21, 0)), askOn,
                List.of(new SopRules.Attempt(Duration.ofMinutes(30), first, false),
                        new SopRules.Attempt(Duration.ofMinutes(10), second, secondUrgent)),
                SopRules.DEFAULT_MAX_SEGMENTS, priority, "#acme", List.of());
    }

    /** A book of stored versions, one client's, the last added the newest. */
    private static final class Book implements SopBook {
        private final Map<Integer, SopRules> versions = new HashMap<>();

        void add(SopRules rules) {
            versions.put(versions.size() + 1, rules);
        }

        @Override
        public Sop current(String clientId) {
            return at(clientId, versions.size());
        }

        @Override
        public Sop at(String clientId, int version) {
            return new Sop(new SopRef(clientId, version), versions.get(version));
        }
    }

    /** A load's log, each event decided by the policy on the state its log projects, and kept (through the codec). */
    private static final class Load {
        private final List<LogEntry> log = new ArrayList<>();
        private final DecisionPolicy policy;
        private int events;

        Load(DecisionPolicy policy) {
            this.policy = policy;
        }

        LoadState state() {
            List<RecordedEntry> entries = new ArrayList<>();
            for (LogEntry entry : log) {
                entries.add(new RecordedEntry(entries.size() + 1, NIGHT, LogCodec.decode(entry.kind(), LogCodec.encode(entry))));
            }
            return LoadState.project(new LoadLog(LOAD, entries.size(), entries));
        }

        DecisionRecorded on(EventPayload payload, Instant at) {
            InboundEvent event = new InboundEvent("e" + (++events), LOAD, at, at, "c-1", null, payload);
            DecisionRecorded decision = Decisions.decide(state(), event, policy, at);
            log.add(event);
            log.add(decision);
            return decision;
        }

        DecisionRecorded fire(Action.SetTimer timer) {
            TimerId id = timer.timerId();
            return on(new EventPayload.TimerFired(id.toString(), id.askId().toString(), id.attempt(), timer.fireAt()),
                    timer.fireAt());
        }
    }

    private static Action.SetTimer timer(DecisionRecorded decision) {
        return decision.actions().stream().filter(Action.SetTimer.class::isInstance).map(Action.SetTimer.class::cast)
                .findFirst().orElseThrow();
    }

    private static List<String> texts(DecisionRecorded decision) {
        return decision.actions().stream().filter(Action.SendSms.class::isInstance).map(a -> ((Action.SendSms) a).text()).toList();
    }

    private static Load assigned(SopBook book, Instant at) {
        Load load = new Load(new SopPolicy(book));
        load.on(new EventPayload.LoadAssigned(CLIENT, "+15550100", "in-transit"), at);
        return load;
    }

    @Test
    void aTextDecidedAtNightWaitsForTheSmsHoursOnATimerThenGoes() {
        Book book = new Book();
        book.add(rules("{clientName}: ETA for {loadId} ({stage})?", "Still waiting on {loadId}", false,
                EnumSet.of(Risk.HIGH), Urgency.URGENT));
        Load load = assigned(book, NIGHT);

        DecisionRecorded opened = load.on(new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6), NIGHT);

        assertThat(texts(opened)).as("no SMS at 02:00 local").isEmpty();
        Action.SetTimer window = timer(opened);
        assertThat(window.timerId().window()).isTrue();
        assertThat(window.fireAt()).as("06:00 in Chicago").isEqualTo(Instant.parse("2026-12-07T12:00:00Z"));
        assertThat(load.state().openAsks().values()).singleElement().satisfies(ask -> assertThat(ask.waitsForWindow()).isTrue());

        DecisionRecorded sent = load.fire(window);

        assertThat(texts(sent)).containsExactly("Acme Foods: ETA for L-77 (in-transit)?");
        assertThat(timer(sent).timerId().window()).isFalse();
        assertThat(timer(sent).fireAt()).isEqualTo(window.fireAt().plus(Duration.ofMinutes(30)));
        assertThat(sent.sop()).isEqualTo(new SopRef(CLIENT, 1));
    }

    @Test
    void anUrgentAttemptIsTextedOutsideTheHoursAndEachAttemptHasItsOwnTextAndWait() {
        Book book = new Book();
        book.add(rules("ETA for {loadId}?", "Attempt {attempt}: please call dispatch about {loadId}", true,
                EnumSet.of(Risk.HIGH), Urgency.URGENT));
        Load load = assigned(book, DAY.minus(Duration.ofHours(13)));
        // 20:50 local: the first text goes; its answer is due at 21:20, outside the hours
        Instant evening = Instant.parse("2026-12-08T02:50:00Z");
        DecisionRecorded first = load.on(new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6), evening);
        assertThat(texts(first)).containsExactly("ETA for L-77?");

        DecisionRecorded second = load.fire(timer(first));

        assertThat(texts(second)).as("the second attempt is urgent").containsExactly("Attempt 2: please call dispatch about L-77");
        assertThat(timer(second).fireAt()).isEqualTo(timer(first).fireAt().plus(Duration.ofMinutes(10)));
    }

    @Test
    void theRiskLevelsThatOpenAnAskAndTheHeroTasksPriorityComeFromTheSop() {
        Book book = new Book();
        book.add(rules("ETA?", "ETA now?", false, EnumSet.of(Risk.HIGH, Risk.MEDIUM), Urgency.NORMAL));
        Load load = assigned(book, DAY);

        DecisionRecorded opened = load.on(new EventPayload.LocationPing(Risk.MEDIUM, 41.9, -87.6), DAY);
        DecisionRecorded second = load.fire(timer(opened));
        DecisionRecorded escalated = load.fire(timer(second));

        assertThat(texts(opened)).containsExactly("ETA?");
        assertThat(escalated.actions()).singleElement().isInstanceOfSatisfying(Action.CreateHeroTask.class,
                task -> assertThat(task.urgency()).isEqualTo(Urgency.NORMAL));
        assertThat(escalated.closedAsks()).hasSize(1);
    }

    @Test
    void aPingOfARiskTheSopDoesNotAskOnOpensNothing() {
        Book book = new Book();
        book.add(rules("ETA?", "ETA now?", false, EnumSet.noneOf(Risk.class), Urgency.URGENT));
        Load load = assigned(book, DAY);

        DecisionRecorded decision = load.on(new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6), DAY);

        assertThat(decision.actions()).isEmpty();
        assertThat(decision.reason()).contains("the SOP opens no ask on it");
        assertThat(decision.sop()).isEqualTo(new SopRef(CLIENT, 1));
    }

    @Test
    void anOpenAskKeepsTheVersionThatOpenedItAndTheNextAskTakesTheNewest() {
        Book book = new Book();
        book.add(rules("v1 first", "v1 second", false, EnumSet.of(Risk.HIGH), Urgency.URGENT));
        Load load = assigned(book, DAY);
        DecisionRecorded opened = load.on(new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6), DAY);

        book.add(rules("v2 first", "v2 second", false, EnumSet.of(Risk.HIGH), Urgency.URGENT));
        DecisionRecorded second = load.fire(timer(opened));
        load.on(new EventPayload.InboundSms("+15550100", "there at 5"), timer(second).fireAt().minusSeconds(60));
        DecisionRecorded next = load.on(new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6), timer(second).fireAt());

        assertThat(texts(opened)).containsExactly("v1 first");
        assertThat(opened.sop()).isEqualTo(new SopRef(CLIENT, 1));
        assertThat(texts(second)).as("attempt 2 of the ask v1 opened").containsExactly("v1 second");
        assertThat(second.sop()).isEqualTo(new SopRef(CLIENT, 1));
        assertThat(texts(next)).as("a new ask takes the newest version").containsExactly("v2 first");
        assertThat(next.sop()).isEqualTo(new SopRef(CLIENT, 2));
        assertThat(load.state().openAsks().values()).singleElement()
                .satisfies(ask -> assertThat(ask.sopVersion()).isEqualTo(2));
    }

    @Test
    void aDecisionOnConfiguredRulesNamesVersionZero() {
        Load load = new Load(new SopPolicy(client -> new SopRules(Duration.ofMinutes(30), 2, "ETA {loadId}?", "#hero")));
        DecisionRecorded assigned = load.on(new EventPayload.LoadAssigned(CLIENT, "+15550100", "in-transit"), NIGHT);
        assertThat(assigned.sop()).as("the assignment names the client it assigns to").isEqualTo(new SopRef(CLIENT, SopRef.CONFIGURED));

        DecisionRecorded opened = load.on(new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6), NIGHT);

        assertThat(texts(opened)).as("configured rules have no SMS hours").containsExactly("ETA L-77?");
        assertThat(opened.sop()).isEqualTo(new SopRef(CLIENT, SopRef.CONFIGURED));
    }

    @Test
    void aWindowTimersIdAndKeysAreItsOwn() {
        AskId ask = AskId.of("eta_request", "ping:0700");
        TimerId window = TimerId.window(LOAD, ask, 2);

        assertThat(window.toString()).isEqualTo("tmr:L-77:win:ask:eta_request:ping:0700:2");
        assertThat(TimerId.parse(window.toString())).isEqualTo(window);
        assertThat(TimerId.parse(TimerId.of(LOAD, ask, 2).toString()).window()).isFalse();
        assertThat(new Action.SetTimer(window, DAY).key(LOAD))
                .isNotEqualTo(new Action.SetTimer(TimerId.of(LOAD, ask, 2), DAY).key(LOAD));
    }
}
