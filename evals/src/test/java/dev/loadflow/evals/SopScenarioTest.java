package dev.loadflow.evals;

import dev.loadflow.evals.sim.ChannelSimulator;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.store.outbox.OutboxStatus;
import dev.loadflow.store.timer.TimerStatus;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Client A's SOP, told as the ADR tells it: 30 minutes between attempts, 3 attempts. */
class SopScenarioTest extends EvalScenario {

    @Test
    void theAdrSequenceDiagramStepByStep() {
        at("06:55").assigned().settle();
        assertThat(log().version()).isEqualTo(2);

        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();

        expectSmsKeys(key(1, "send_sms"));
        assertThat(smsToDriver().get(0).body()).contains("\"to\":\"" + DRIVER + "\"").contains("attempt 1");
        RecordedEntry decision = log().entries().get(3);
        assertThat(decision.seq()).isEqualTo(4);
        assertThat(((DecisionRecorded) decision.entry()).decidedAt()).isEqualTo(time("07:01"));
        assertThat(timer(1).fireAt()).isEqualTo(time("07:31"));
        assertThat(row(key(1, "send_sms")).dispatchedAt()).isEqualTo(time("07:01"));
        assertThat(logIds()).containsExactlyInAnyOrder("assign_1", "dec:assign_1", "ping_0700", "dec:ping_0700",
                "out:" + key(1, "send_sms") + ":delivered", "dec:out:" + key(1, "send_sms") + ":delivered",
                "out:" + key(1, "set_timer") + ":delivered", "dec:out:" + key(1, "set_timer") + ":delivered");
        assertThat(log().version()).isEqualTo(8);

        at("07:30:59").settle();
        assertThat(smsToDriver()).hasSize(1);

        at("07:31").settle();
        expectSmsKeys(key(1, "send_sms"), key(2, "send_sms"));
        assertThat(smsToDriver().get(1).body()).contains("attempt 2");
        assertThat(logged("evt:tmr:" + LOAD + ":" + ASK + ":1")).isEqualTo(1);
        assertThat(timer(1).status()).isEqualTo(TimerStatus.FIRED);
        assertThat(timer(1).firedAt()).isEqualTo(time("07:31"));
        assertThat(timer(2).fireAt()).isEqualTo(time("08:01"));
        assertThat(log().version()).as("TimerFired, its decision, two outcomes and their noops").isEqualTo(14);
        assertThat(log().entries().get(8).entry().entryId()).isEqualTo("evt:tmr:" + LOAD + ":" + ASK + ":1");
    }

    @Test
    void theDriverAnswersAfterTheFirstSmsAndTheTimerIsCancelled() {
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();

        at("07:10").driverSays("sms_0710", "ETA 9:30").settle();

        assertThat(timer(1).status()).isEqualTo(TimerStatus.CANCELLED);
        assertThat(channels().delivered("slack")).singleElement().satisfies(post -> {
            assertThat(post.idempotencyKey()).isEqualTo(key(1, "post_hero_slack"));
            assertThat(post.body()).contains("ETA 9:30").contains("#hero-desk");
        });
        at("07:31").settle();
        at("09:00").settle();
        expectSmsKeys(key(1, "send_sms"));
        assertThat(logged("evt:tmr:" + LOAD + ":" + ASK + ":1")).isZero();
        assertThat(heroTasks()).isEmpty();
    }

    @Test
    void theDriversWordsReachSlackAsWrittenNeverAsAMentionOrALink() {
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();

        at("07:10").driverSays("sms_0710", "<!channel> ETA 9:30 & see <https://evil.example|the tracker>").settle();

        assertThat(channels().delivered("slack")).singleElement().satisfies(post -> assertThat(post.body())
                .contains("&lt;!channel&gt; ETA 9:30 &amp; see &lt;https://evil.example|the tracker&gt;")
                .doesNotContain("<!channel>").doesNotContain("<https://"));
    }

    @Test
    void anSmsFromAnotherNumberAnswersNoAskAndBecomesAHeroTask() {
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();

        at("07:10").smsFrom("+15550199", "sms_0710", "ETA 9:30, this is the driver").settle();

        assertThat(timer(1).status()).as("the ask is still open: its timer runs").isEqualTo(TimerStatus.SCHEDULED);
        assertThat(channels().delivered("slack")).as("nobody was told the driver answered").isEmpty();
        assertThat(heroTasks()).singleElement().satisfies(task -> {
            assertThat(task.idempotencyKey()).isEqualTo(LOAD + "/evt:sms_0710/1/create_hero_task");
            assertThat(task.body()).contains("not the driver's").contains("+15550199").contains("ETA 9:30");
        });
        at("07:31").settle();
        expectSmsKeys(key(1, "send_sms"), key(2, "send_sms"));
    }

    @Test
    void aTimerThatFiresAsTheDriverAnswersIsANoop() {
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();

        // 07:31: the answer is queued just before the pump publishes the timer
        at("07:31").driverSays("sms_0731", "on my way, 20 min");
        h.pumpTimers();
        h.settle();

        expectSmsKeys(key(1, "send_sms"));
        DecisionRecorded noop = (DecisionRecorded) log().entries().stream().map(RecordedEntry::entry)
                .filter(e -> e.entryId().equals("dec:evt:tmr:" + LOAD + ":" + ASK + ":1")).findFirst().orElseThrow();
        assertThat(noop.filtered()).isTrue();
        assertThat(noop.reason()).contains("stale timer");
        assertThat(row(key(1, "cancel_timer")).status()).as("the cancel of a fired timer is a harmless no-op")
                .isEqualTo(OutboxStatus.DISPATCHED);
        assertThat(timer(1).status()).isEqualTo(TimerStatus.FIRED);
    }

    @Test
    void noAnswerAfterEveryAttemptRaisesOneUrgentHeroTask() {
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();
        at("07:31").settle();
        at("08:01").settle();
        at("08:31").settle();
        at("12:00").settle();

        expectSmsKeys(key(1, "send_sms"), key(2, "send_sms"), key(3, "send_sms"));
        assertThat(heroTasks()).singleElement().satisfies(task -> {
            assertThat(task.idempotencyKey()).isEqualTo(key(3, "create_hero_task"));
            assertThat(task.body()).contains("\"loadId\":\"" + LOAD + "\"").contains("\"urgency\":\"urgent\"");
        });
        assertThat(row(key(3, "create_hero_task")).dispatchedAt()).isEqualTo(time("08:31"));
        assertThat(h.channels.delivered("slack")).isEmpty();
        List<Integer> steps = List.of(1, 2, 3);
        assertThat(steps).allSatisfy(step -> assertThat(timer(step).status()).isEqualTo(TimerStatus.FIRED));
        assertThat(smsToDriver()).extracting(ChannelSimulator.Delivery::sequence).isSorted();
    }
}
