package dev.loadflow.evals;

import dev.loadflow.evals.sim.ChannelSimulator;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.json.EventCodec;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.outbox.OutboxStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Hero desk hears within the retry budget whatever the SMS provider does: a provider that asks
 * for a ten-minute pause, an SMS that may or may not have reached the driver, a row an operator
 * replayed that fails again. Each is escalated once, and no SMS goes out twice.
 */
class EscalationScenarioTest extends EvalScenario {

    /** Loads {@code n} of client A, each assigned at 06:55 and pinged high-risk at 07:00; their ids. */
    private static List<String> assignedAndPinged(int n) {
        List<String> loads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String load = "esc-" + i;
            loads.add(load);
            ingest(load, """
                    {"eventId": "assign_1", "type": "LoadAssigned", "occurredAt": "%s",
                     "payload": {"clientId": "client-a", "driverPhone": "+1555010%02d", "stage": "dispatched"}}"""
                    .formatted(time("06:55"), i));
        }
        at("07:00");
        for (String load : loads) {
            ingest(load, """
                    {"eventId": "ping_0700", "type": "LocationPing", "occurredAt": "%s",
                     "payload": {"risk": "high", "lat": 41.9, "lon": -87.6}}""".formatted(h.clock.instant()));
        }
        return loads;
    }

    private static void ingest(String load, String json) {
        h.ingest(EventCodec.parseIngest(load, json, h.clock.instant()));
    }

    private static String smsOf(String load) {
        return load + "/" + ASK + "/1/send_sms";
    }

    /** Settles every {@code step} of the clock until {@code until}. */
    private static void settleUntil(Instant until, Duration step) {
        h.settle();
        while (h.clock.instant().isBefore(until)) {
            h.clock.advance(step);
            h.settle();
        }
    }

    /**
     * Twenty loads' first SMS meet a provider answering {@code 503} with {@code Retry-After: 600}.
     * Nothing more is sent to it for the ten minutes it asked, but no row waits past its 150 s
     * budget: each dies then, its failed outcome reaches its load, and the SOP gives the Hero desk
     * an urgent task per load before 07:03, inside the ADR's five minutes. When the provider is
     * back, none of those SMS is sent after all.
     */
    @Test
    void twentyLoadsWhoseProviderAsksForTenMinutesAreAllEscalatedWithinTheBudget() {
        channels().failAlways("sms", 503, Duration.ofSeconds(600));
        List<String> loads = assignedAndPinged(20);

        settleUntil(time("07:00").plus(Harness.BUDGET).plusSeconds(10), Duration.ofSeconds(10));

        assertThat(loads).allSatisfy(load -> assertThat(row(smsOf(load)).status()).isEqualTo(OutboxStatus.DEAD));
        List<ChannelSimulator.Delivery> tasks = heroTasks();
        assertThat(tasks).extracting(ChannelSimulator.Delivery::idempotencyKey).containsExactlyInAnyOrderElementsOf(
                loads.stream().map(load -> load + "/" + ASK + "/1/create_hero_task").toList());
        assertThat(tasks).allSatisfy(task -> assertThat(task.body()).contains("\"urgency\":\"urgent\"").contains("failed"));
        int triedBeforeThePause = loads.stream().mapToInt(load -> channels().requests("sms", smsOf(load))).sum();
        assertThat(triedBeforeThePause).as("the pause holds every send after the answer that asked for it").isOne();

        channels().heal("sms");
        at("07:45");
        h.settle();
        at("08:30");
        h.settle();

        assertThat(loads.stream().mapToInt(load -> channels().requests("sms", smsOf(load))).sum())
                .as("the provider is back: no SMS of those asks goes out").isEqualTo(triedBeforeThePause);
        assertThat(smsToDriver()).isEmpty();
        assertThat(heroTasks()).as("each load escalated once").hasSize(20);
    }

    /**
     * Twenty loads' SMS meet a provider answering {@code 503} to everything: the circuit opens, the
     * rows it holds back are given back, and its half-open trial calls fail too. Trials never
     * restart a row's budget: every load's Hero task is sent by 07:02:40, and when the provider is
     * back none of those SMS goes out.
     */
    @Test
    void twentyLoadsWhoseProviderFailsItsTrialCallsAreAllEscalatedWithinTheBudget() {
        h.circuits(4, Duration.ofMillis(1));
        channels().failAlways("sms", 503);
        List<String> loads = assignedAndPinged(20);

        settleUntil(time("07:00").plus(Harness.BUDGET).plusSeconds(10), Duration.ofSeconds(10));

        assertThat(loads).allSatisfy(load -> assertThat(row(smsOf(load)).status()).isEqualTo(OutboxStatus.DEAD));
        assertThat(heroTasks()).extracting(ChannelSimulator.Delivery::idempotencyKey).containsExactlyInAnyOrderElementsOf(
                loads.stream().map(load -> load + "/" + ASK + "/1/create_hero_task").toList());
        int tried = loads.stream().mapToInt(load -> channels().requests("sms", smsOf(load))).sum();
        // a row's retries within its 150 s budget: backoffs from half a second to half of 30 s, about 13 at most
        assertThat(tried).as("trial calls were made, never more than the rows' budgets allow").isBetween(5, 20 * 15);

        channels().heal("sms");
        at("08:30");
        h.settle();

        assertThat(loads.stream().mapToInt(load -> channels().requests("sms", smsOf(load))).sum())
                .as("the provider is back: no SMS of those asks goes out").isEqualTo(tried);
        assertThat(smsToDriver()).isEmpty();
    }

    /**
     * An SMS to a provider that keeps no idempotency key meets a {@code 502}: the message may exist.
     * It is never sent again by itself; its ambiguous outcome gives the Hero desk one task to call
     * the driver, at once, and the row waits for an operator. Resent by the operator, it is
     * refused for good: a second, different task says it failed again.
     */
    @Test
    void anSmsThatMayNotHaveReachedTheDriverIsEscalatedOnceAndAgainIfItFailsWhenResent() {
        h.smsKeepsNoKey();
        at("06:55").assigned().settle();
        channels().failNext("sms", 502, 1);
        at("07:00").ping("ping_0700", Risk.HIGH);
        h.settle();

        assertThat(row(key(1, "send_sms")).status()).isEqualTo(OutboxStatus.AMBIGUOUS);
        assertThat(logged("out:" + key(1, "send_sms") + ":ambiguous")).isEqualTo(1);
        assertThat(heroTasks()).singleElement().satisfies(task -> {
            assertThat(task.body()).contains("may not have reached the driver").contains("\"urgency\":\"urgent\"");
            assertThat(task.idempotencyKey()).isEqualTo(LOAD + "/out:" + ASK + ":1:send_sms:ambiguous:1/1/create_hero_task");
        });
        at("07:45").settle();
        assertThat(heroTasks()).as("once").hasSize(1);
        assertThat(channels().requests("sms", key(1, "send_sms"))).as("never sent again by itself").isOne();

        channels().failAlways("sms", 400);
        assertThat(h.outbox.resolve(key(1, "send_sms"), Outbox.Resolution.RESEND, null, h.clock.instant(),
                new AuditRecord("otto", "outbox-dispatcher", "outbox.resolve", key(1, "send_sms"), "{\"as\":\"resend\"}")))
                .isPresent();
        h.settle();

        assertThat(row(key(1, "send_sms")).status()).isEqualTo(OutboxStatus.DEAD);
        assertThat(logged("out:" + key(1, "send_sms") + ":failed:2")).isEqualTo(1);
        assertThat(heroTasks()).hasSize(2);
        assertThat(heroTasks().get(1).body()).contains("failed again after a replay");
    }

    /** A dead SMS an operator replays, which the provider refuses again: the Hero desk hears of it again. */
    @Test
    void aReplayedSmsThatDiesAgainIsEscalatedAgain() {
        channels().failAlways("sms", 400);
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        h.settle();
        assertThat(heroTasks()).hasSize(1);

        at("07:20");
        assertThat(h.outbox.replay(key(1, "send_sms"), h.clock.instant(),
                new AuditRecord("otto", "outbox-dispatcher", "outbox.replay", key(1, "send_sms"), "{}"))).isPresent();
        h.settle();

        assertThat(logged("out:" + key(1, "send_sms") + ":failed")).isEqualTo(1);
        assertThat(logged("out:" + key(1, "send_sms") + ":failed:2")).isEqualTo(1);
        assertThat(heroTasks()).extracting(ChannelSimulator.Delivery::idempotencyKey).containsExactly(
                key(1, "create_hero_task"), LOAD + "/out:" + ASK + ":1:send_sms:failed:2/1/create_hero_task");
        assertThat(channels().requests("sms", key(1, "send_sms"))).isEqualTo(2);
        InboundEvent second = log().entries().stream().map(e -> e.entry())
                .filter(InboundEvent.class::isInstance).map(InboundEvent.class::cast)
                .filter(e -> e.eventId().equals("out:" + key(1, "send_sms") + ":failed:2")).findFirst().orElseThrow();
        assertThat(((EventPayload.ActionOutcome) second.payload()).round()).as("logged with its round").isEqualTo(2);
    }
}
