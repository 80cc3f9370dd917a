package dev.loadflow.evals;

import dev.loadflow.evals.sim.ChannelSimulator;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.event.SopRef;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.model.json.SopRulesCodec;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.store.audit.AuditRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Client A's SOP as stored versions: an ask keeps the version that opened it while the operations
 * team changes the SOP between its attempts; the next ask follows the newest; a text decided outside
 * the client's SMS hours waits for them on a durable timer.
 */
class SopVersionScenarioTest extends EvalScenario {

    @BeforeEach
    void storedSops() {
        h.useStoredSops();
    }

    private static void newVersion(String rulesJson, String reason) {
        h.sops.add("client-a", SopRulesCodec.decode(rulesJson), reason,
                new AuditRecord("ops@example", "load-worker", "sop.put", "client-a", "{}"), h.clock.instant());
    }

    private static DecisionRecorded decisionOn(String eventId) {
        return log().entries().stream().map(RecordedEntry::entry).filter(DecisionRecorded.class::isInstance)
                .map(DecisionRecorded.class::cast).filter(d -> d.eventId().equals(eventId)).findFirst().orElseThrow();
    }

    private static String text(ChannelSimulator.Delivery sms) {
        try {
            return JsonReader.MAPPER.readTree(sms.body()).path("text").asText();
        } catch (java.io.IOException e) {
            throw new AssertionError("an SMS body that is not JSON: " + sms.body(), e);
        }
    }

    @Test
    void anAskKeepsItsVersionWhenTheSopChangesBetweenAttemptsAndTheNextAskTakesTheNewest() {
        newVersion("""
                {"attempts": [{"wait": "PT30M", "text": "v1: ETA for {loadId}?"}, {"wait": "PT30M", "text": "v1: still waiting on {loadId}"}],
                 "heroSlackChannel": "#hero-v1"}""", "the first SOP");
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();

        newVersion("""
                {"attempts": [{"wait": "PT10M", "text": "v2: when do you arrive with {loadId}?"}], "heroSlackChannel": "#hero-v2"}""",
                "one attempt, ten minutes");
        at("07:31").settle();
        at("07:40").driverSays("sms_0740", "ETA 9:30").settle();
        at("09:00").ping("ping_0900", Risk.HIGH);
        at("09:01").settle();

        assertThat(smsToDriver()).extracting(SopVersionScenarioTest::text).containsExactly(
                "v1: ETA for 481207?", "v1: still waiting on 481207", "v2: when do you arrive with 481207?");
        assertThat(decisionOn("ping_0700").sop()).isEqualTo(new SopRef("client-a", 1));
        assertThat(decisionOn("evt:tmr:481207:" + ASK + ":1").sop()).as("attempt 2, after v2 was added")
                .isEqualTo(new SopRef("client-a", 1));
        assertThat(timer(2).fireAt()).as("v1's wait, not v2's").isEqualTo(time("08:01"));
        assertThat(channels().delivered("slack")).singleElement().satisfies(post -> assertThat(post.body()).contains("#hero-v1"));
        assertThat(decisionOn("ping_0900").sop()).isEqualTo(new SopRef("client-a", 2));
    }

    @Test
    void aTextDecidedBeforeTheSmsHoursWaitsForThemOnADurableTimer() {
        newVersion("""
                {"timeZone": "UTC", "smsHours": {"from": "08:00", "to": "20:00"},
                 "attempts": [{"wait": "PT30M", "text": "ETA for {loadId}?"}, {"wait": "PT30M", "text": "Second ask about {loadId}"}],
                 "heroSlackChannel": "#hero-desk"}""", "no texts before 8");
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();

        assertThat(smsToDriver()).as("before the SMS hours").isEmpty();
        assertThat(h.timers.find(dev.loadflow.model.id.TimerId.parse("tmr:481207:win:" + ASK + ":1")).orElseThrow().fireAt())
                .isEqualTo(time("08:00"));

        at("07:59:59").settle();
        assertThat(smsToDriver()).isEmpty();
        at("08:00").settle();
        assertThat(smsToDriver()).extracting(SopVersionScenarioTest::text).containsExactly("ETA for 481207?");
        assertThat(timer(1).fireAt()).isEqualTo(time("08:30"));
        at("08:30").settle();
        assertThat(smsToDriver()).extracting(SopVersionScenarioTest::text).containsExactly("ETA for 481207?", "Second ask about 481207");
    }
}
