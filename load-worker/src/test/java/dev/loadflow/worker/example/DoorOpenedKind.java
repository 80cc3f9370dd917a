package dev.loadflow.worker.example;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.model.event.EventKind;
import dev.loadflow.model.event.EventType;
import dev.loadflow.model.json.JsonReader;

import java.util.Set;

/**
 * The registration of {@link DoorOpened} (listed in
 * {@code META-INF/services/dev.loadflow.model.event.EventKind}): a type sources may post.
 */
public final class DoorOpenedKind implements EventKind<DoorOpened> {

    public static final EventType TYPE = EventType.register("DoorOpened", true);

    @Override
    public EventType type() {
        return TYPE;
    }

    @Override
    public Class<DoorOpened> javaType() {
        return DoorOpened.class;
    }

    @Override
    public Set<String> fields() {
        return Set.of("door", "sealIntact");
    }

    @Override
    public void write(DoorOpened payload, ObjectNode json) {
        json.put("door", payload.door()).put("sealIntact", payload.sealIntact());
    }

    @Override
    public DoorOpened read(JsonReader payload) {
        return new DoorOpened(payload.text("door", 16), payload.bool("sealIntact"));
    }
}
