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
    /**
     * @param ambiguous a {@code failed} outcome of a row parked as ambiguous: the provider may or may
     *                  not have the message (a lost answer on a channel that keeps no idempotency key)
     * @param round     which of the row's endings this is: 1, then one more after each replay or resend
     *                  that ended again (a replayed row that dies again is heard again)
     */
    record ActionOutcome(String outboxId, String actionType, OutcomeStatus status, String receipt,
                         String failure, boolean heroChannel, boolean ambiguous, int round) implements EventPayload {

        public ActionOutcome {
            if (round < 1) {
                throw new IllegalArgumentException("an outcome's round starts at 1, got " + round);
            }
            if (ambiguous && status != OutcomeStatus.FAILED) {
                throw new IllegalArgumentException("only a failed outcome is ambiguous");
            }
        }

        /** The first ending of a row, known for sure. */
        public ActionOutcome(String outboxId, String actionType, OutcomeStatus status, String receipt, String failure,
                             boolean heroChannel) {
            this(outboxId, actionType, status, receipt, failure, heroChannel, false, 1);
        }

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
