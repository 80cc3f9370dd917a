package dev.loadflow.testing;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import dev.loadflow.store.outbox.OutboxMessage;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Events, decisions and outbox rows as a run would write them, for store tests. */
public final class Fixtures {

    private Fixtures() {
    }

    /** A load id no other test uses. */
    public static String newLoadId() {
        return "load-" + UUID.randomUUID().toString().substring(0, 13);
    }

    public static InboundEvent ping(String loadId, String eventId, Instant at) {
        return new InboundEvent(eventId, loadId, at, at, "c-" + eventId, null,
                new EventPayload.LocationPing(Risk.HIGH, 41.9, -87.6));
    }

    public static InboundEvent sms(String loadId, String eventId, Instant at, String text) {
        return new InboundEvent(eventId, loadId, at, at, "c-" + eventId, null,
                new EventPayload.InboundSms("+15550100", text));
    }

    /** The ETA ask a high-risk ping opens: an SMS and a 30-minute timer, step 1. */
    public static List<Action> etaAsk(InboundEvent ping, Instant decidedAt) {
        AskId ask = AskId.of("eta_request", ping.eventId());
        return List.of(
                new Action.SendSms(ask, 1, "+15550100", "Hi, what is your ETA?"),
                new Action.SetTimer(TimerId.of(ping.loadId(), ask, 1), decidedAt.plus(Duration.ofMinutes(30))));
    }

    public static DecisionRecorded decision(InboundEvent event, Instant decidedAt, List<Action> actions) {
        return DecisionRecorded.decided(event, decidedAt, actions, false, "test decision", List.of());
    }

    public static List<OutboxMessage> outboxRows(String loadId, List<Action> actions, Instant availableAt, String causationId) {
        return actions.stream().map(a -> OutboxMessage.of(loadId, a, availableAt, "c-" + causationId, causationId)).toList();
    }
}
