package dev.loadflow.evals;

import dev.loadflow.model.event.EventType;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.queue.HeldLoad;
import dev.loadflow.worker.hold.HeldRepairs;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Why poison holds its load. The assignment cannot be processed (a release broke the SOP for
 * it); were it parked, the high-risk ping behind it would find no driver and open a Hero task
 * for a load that has one. Held, the ping waits; once the fix is out, an operator's retry runs
 * the assignment and then the ping, which texts the driver as on any other day.
 */
class HeldLoadScenarioTest extends EvalScenario {

    private static final AuditRecord RETRY = new AuditRecord("otto", "load-worker", "load.retry", LOAD, "{}");

    /** The SOP with a bug that throws on every assignment. */
    private static DecisionPolicy brokenOnAssignments() {
        DecisionPolicy sop = Harness.sop();
        return (event, state, now) -> {
            if (event.type() == EventType.LOAD_ASSIGNED) {
                throw new IllegalStateException("client-a has no SOP loaded");
            }
            return sop.decide(event, state, now);
        };
    }

    @Test
    void aHeldAssignmentKeepsThePingBehindItFromOpeningAHeroTaskAndARetryLetsThePingTextTheDriver() {
        h.usePolicy(brokenOnAssignments());
        at("06:55").assigned().settle();

        HeldLoad hold = h.held.among(List.of(LOAD)).get(LOAD);
        assertThat(hold).as("held after %d deliveries", Harness.MAX_DELIVERIES).isNotNull();
        assertThat(hold.messageId()).isEqualTo("assign_1");
        assertThat(hold.messageType()).isEqualTo("LoadAssigned");

        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();
        at("07:05").settle();

        assertThat(heroTasks()).as("no 'no driver assigned' task for a load that has a driver").isEmpty();
        assertThat(smsToDriver()).isEmpty();
        assertThat(log().version()).as("nothing of the load ran").isZero();

        h.usePolicy(Harness.sop());
        at("07:10");
        assertThat(h.repairs.retry(LOAD, RETRY)).isInstanceOf(HeldRepairs.Done.class);
        h.settle();

        assertThat(logIds().subList(0, 4)).containsExactly("assign_1", "dec:assign_1", "ping_0700", "dec:ping_0700");
        expectSmsKeys(key(1, "send_sms"));
        assertThat(smsToDriver().getFirst().body()).contains("\"to\":\"" + DRIVER + "\"");
        assertThat(heroTasks()).isEmpty();
        assertThat(h.held.among(List.of(LOAD))).as("the hold is over").isEmpty();
    }

    @Test
    void aSkippedAssignmentLetsThePingGoOnAsForALoadWithNoDriver() {
        h.usePolicy(brokenOnAssignments());
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();
        h.usePolicy(Harness.sop());

        assertThat(h.repairs.skip(LOAD, "assignment resent by the TMS as a new load",
                new AuditRecord("otto", "load-worker", "load.skip", LOAD, "{}"))).isInstanceOf(HeldRepairs.Done.class);
        h.settle();

        assertThat(logIds().subList(0, 3)).containsExactly("assign_1", "ping_0700", "dec:ping_0700");
        assertThat(log().entries().getFirst().entry().typeName()).isEqualTo("MessageSkipped");
        assertThat(smsToDriver()).isEmpty();
        assertThat(heroTasks()).as("the operator chose this: the load has no driver on record").hasSize(1);
    }
}
