package dev.loadflow.model.event;

/**
 * The type-specific part of an inbound event. Exhaustive: a {@code switch} over it needs no
 * default, so adding a built-in type shows every place that must handle it. A type added to
 * loadflow without changing it is an {@link Extension} with its {@link EventKind}.
 */
public sealed interface EventPayload
        permits EventPayload.LoadAssigned, EventPayload.LocationPing, EventPayload.InboundSms,
        EventPayload.TimerFired, EventPayload.ActionOutcome, EventPayload.Extension {

    EventType type();

    /** A load was given to a client's driver. */
    record LoadAssigned(String clientId, String driverPhone, String stage) implements EventPayload {
        @Override
        public EventType type() {
            return EventType.LOAD_ASSIGNED;
        }
    }

    /** A telematics position with its risk. */
    record LocationPing(Risk risk, double lat, double lon) implements EventPayload {
        @Override
        public EventType type() {
            return EventType.LOCATION_PING;
        }
    }

    /** An SMS a driver sent us. */
    record InboundSms(String from, String text) implements EventPayload {
        @Override
        public EventType type() {
            return EventType.INBOUND_SMS;
        }
    }

    /** A durable timer came due ({@code timerId} names its ask and attempt). */
    record TimerFired(String timerId, String askId, int attempt, java.time.Instant fireAt) implements EventPayload {
        @Override
        public EventType type() {
            return EventType.TIMER_FIRED;
        }
    }

    /**
     * The final result of one outbox row. {@code heroChannel} is set when the action went to the
     * Hero tooling or was internal: its failure raised an OpsAlert and must never raise another
     * Hero task. {@code receipt} is set when delivered, {@code failure} when failed.
     */
    record ActionOutcome(String outboxId, String actionType, OutcomeStatus status, String receipt,
                         String failure, boolean heroChannel) implements EventPayload {
        @Override
        public EventType type() {
            return EventType.ACTION_OUTCOME;
        }
    }

    /**
     * The payload of an event type added to loadflow: a record of its own, with an
     * {@link EventKind} registered for its {@link #type()}. It changes no field of the built-in
     * projection; the SOP decides nothing on it.
     */
    non-sealed interface Extension extends EventPayload {
    }
}
