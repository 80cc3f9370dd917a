package dev.loadflow.worker.ingest;

import dev.loadflow.service.loop.GroupCommit;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.LoadQueue.Intake;
import dev.loadflow.store.queue.QueueMessage;

/**
 * Ingest's group commit: the events of requests that arrive while a write is under way are
 * queued together in the next one ({@link LoadQueue#enqueueAllUnlessLogged}: on PostgreSQL one
 * statement and one commit for the lot). A request alone is written at once; each one still
 * answers only after its own event is committed, and a failed write fails every request of it.
 */
public final class Ingests {

    /** The most events one write takes; more wait for the next. */
    static final int MAX_BATCH = 100;

    private final GroupCommit<QueueMessage, Intake> writes;

    public Ingests(LoadQueue queue, EventStore events) {
        this.writes = new GroupCommit<>(messages -> queue.enqueueAllUnlessLogged(messages, events), MAX_BATCH);
    }

    /** Queues the event's message unless its load logged it; waits for the write that takes it. */
    public Intake submit(QueueMessage message) {
        return writes.submit(message);
    }
}
