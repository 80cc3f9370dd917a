package dev.loadflow.worker.example;

import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.EventType;

import java.util.Objects;

/** An example of an added event type: telematics saw a trailer door open, its seal intact or not. */
public record DoorOpened(String door, boolean sealIntact) implements EventPayload.Extension {

    public DoorOpened {
        Objects.requireNonNull(door, "door");
    }

    @Override
    public EventType type() {
        return DoorOpenedKind.TYPE;
    }
}
