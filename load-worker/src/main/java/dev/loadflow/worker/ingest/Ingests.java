package dev.loadflow.worker.ingest;

import dev.loadflow.service.loop.GroupCommit;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.LoadQueue.Intake;
import dev.loadflow.store.queue.MessageRefusedException;
import dev.loadflow.store.queue.QueueMessage;
import io.vertx.pgclient.PgException;

/**
 * Ingest's group commit: the events of requests that arrive while a write is under way are
 * queued together in the next one ({@link LoadQueue#enqueueAllUnlessLogged}: on PostgreSQL one
 * statement and one commit for the lot). A request alone is written at once; each one still
 * answers only after its own event is committed. A write PostgreSQL refuses (it answered with an
 * error) is written again request by request, so a request the database cannot take fails alone
 * and never its neighbours; a write that got no answer (the database down or unreachable) fails
 * its requests at once.
 */
public final class Ingests {

    /** The most events one write takes; more wait for the next. */
    static final int MAX_BATCH = 100;

    private final GroupCommit<QueueMessage, Intake> writes;

    public Ingests(LoadQueue queue, EventStore events) {
        this.writes = new GroupCommit<>(messages -> queue.enqueueAllUnlessLogged(messages, events), MAX_BATCH,
                Ingests::refusedByTheDatabase);
    }

    private static boolean refusedByTheDatabase(RuntimeException e) {
        return e instanceof PgException || e instanceof MessageRefusedException;
    }

    /** Queues the event's message unless its load logged it; waits for the write that takes it. */
    public Intake submit(QueueMessage message) {
        return writes.submit(message);
    }
}
