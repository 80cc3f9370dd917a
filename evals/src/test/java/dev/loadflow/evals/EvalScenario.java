package dev.loadflow.evals;

import dev.loadflow.evals.sim.ChannelSimulator;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.json.EventCodec;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.store.queue.QueueMessage;
import dev.loadflow.store.timer.Timer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

import java.io.IOException;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The language of the scenarios: an operator's story of load 481207 on 2026-11-30 (UTC).
 * {@code at("07:00")} moves the clock; events arrive through the same path as ingest;
 * {@code settle()} lets the pump, the worker and the dispatcher run until nothing moves.
 * A failed scenario prints the load's log and outbox.
 */
abstract class EvalScenario {

    static final String LOAD = "481207";
    static final String DRIVER = "+15550100";
    static final String ASK = "ask:eta_request:ping_0700";

    static Harness h;

    @RegisterExtension
    final TestWatcher report = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            System.out.println("== scenario failed: " + context.getDisplayName() + h.describe(LOAD));
        }
    };

    /** Every scenario on its own database, simulator and clock, starting at 06:00. */
    @BeforeEach
    final void freshStory(org.junit.jupiter.api.TestInfo info) throws IOException {
        h = Harness.start(info.getTestMethod().orElseThrow().getName().toLowerCase().substring(0, 12), time("06:00"),
                queues());
    }

    /** The load queue the story runs on; the PostgreSQL one unless a scenario class says otherwise. */
    Harness.QueueFactory queues() {
        return Harness.POSTGRES_QUEUE;
    }

    @AfterEach
    final void endStory() {
        h.close();
    }

    static Instant time(String hhmmss) {
        return LocalTime.parse(hhmmss).atDate(java.time.LocalDate.of(2026, 11, 30)).toInstant(ZoneOffset.UTC);
    }

    /** Moves the clock to {@code hhmm[:ss]} that day (never back). */
    static EvalScenario.Story at(String hhmm) {
        Instant t = time(hhmm);
        if (t.isAfter(h.clock.instant())) {
            h.clock.set(t);
        }
        return new Story();
    }

    /** What arrives from outside, through the ingest path (validated, deduplicated, queued). */
    static final class Story {
        Story assigned() {
            return ingest("""
                    {"eventId": "assign_1", "type": "LoadAssigned", "occurredAt": "%s",
                     "payload": {"clientId": "client-a", "driverPhone": "%s", "stage": "dispatched"}}"""
                    .formatted(h.clock.instant(), DRIVER));
        }

        Story ping(String eventId, Risk risk) {
            return ingest("""
                    {"eventId": "%s", "type": "LocationPing", "occurredAt": "%s",
                     "payload": {"risk": "%s", "lat": 41.9, "lon": -87.6}}"""
                    .formatted(eventId, h.clock.instant(), risk.wire()));
        }

        Story driverSays(String eventId, String text) {
            return smsFrom(DRIVER, eventId, text);
        }

        /** An SMS to the load from {@code phone}, the driver's number or another. */
        Story smsFrom(String phone, String eventId, String text) {
            return ingest("""
                    {"eventId": "%s", "type": "InboundSms", "occurredAt": "%s",
                     "payload": {"from": "%s", "text": "%s"}}"""
                    .formatted(eventId, h.clock.instant(), phone, text));
        }

        Story settle() {
            h.settle();
            return this;
        }

        private Story ingest(String json) {
            InboundEvent event = EventCodec.parseIngest(LOAD, json, h.clock.instant());
            if (!h.events.contains(LOAD, event.eventId())) {
                h.ingest(event);
            }
            return this;
        }
    }

    static ChannelSimulator channels() {
        return h.channels;
    }

    static List<ChannelSimulator.Delivery> smsToDriver() {
        return h.channels.delivered("sms");
    }

    static List<ChannelSimulator.Delivery> heroTasks() {
        return h.channels.delivered("hero");
    }

    static LoadLog log() {
        return h.events.read(LOAD);
    }

    static List<String> logIds() {
        return log().entries().stream().map(e -> e.entry().entryId()).toList();
    }

    static long logged(String entryId) {
        return log().entries().stream().map(RecordedEntry::entry).filter(e -> e.entryId().equals(entryId)).count();
    }

    static OutboxRow row(String outboxId) {
        return h.outbox.find(outboxId).orElseThrow(() -> new AssertionError("no outbox row " + outboxId));
    }

    static Timer timer(int attempt) {
        return h.timers.find(dev.loadflow.model.id.TimerId.parse("tmr:" + LOAD + ":" + ASK + ":" + attempt))
                .orElseThrow(() -> new AssertionError("no timer " + attempt));
    }

    static String key(int attempt, String actionType) {
        return LOAD + "/" + ASK + "/" + attempt + "/" + actionType;
    }

    static void expectSmsKeys(String... keys) {
        assertThat(smsToDriver()).extracting(ChannelSimulator.Delivery::idempotencyKey).containsExactly(keys);
    }
}
