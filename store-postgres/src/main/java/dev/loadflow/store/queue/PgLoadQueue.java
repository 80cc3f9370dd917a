package dev.loadflow.store.queue;

import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.pg.WakeupSignal;
import dev.loadflow.store.pg.Wakeups;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static dev.loadflow.store.queue.QueueStatements.ACK_ALL;
import static dev.loadflow.store.queue.QueueStatements.ENQUEUE;
import static dev.loadflow.store.queue.QueueStatements.ENQUEUE_ALL;
import static dev.loadflow.store.queue.QueueStatements.ENQUEUE_ALL_UNLESS_LOGGED;
import static dev.loadflow.store.queue.QueueStatements.EXTEND;
import static dev.loadflow.store.queue.QueueStatements.PARK;
import static dev.loadflow.store.queue.QueueStatements.RECEIVE;
import static dev.loadflow.store.queue.QueueStatements.RELEASE;
import static dev.loadflow.store.queue.QueueStatements.WAKE;

/**
 * {@link LoadQueue} on PostgreSQL, in the same database as the log.
 *
 * <p>{@code load_queue_group} holds one row per load with queued messages. Receiving locks
 * visible groups with {@code SKIP LOCKED}, hands out each group's head message and hides the
 * group until the visibility timeout ({@code in_flight_handle} set, until
 * {@code in_flight_until}); acking deletes the head and gives the group back at once, with a
 * new {@code visible_at}: receives take the groups given back longest ago first. So a load
 * never has two messages in flight, and a busy load's backlog is never scanned. A delivery
 * changes no indexed column of the group: its row is rewritten in place (HOT), with no new
 * index entry and no uniqueness check of the primary key.
 *
 * <p>Locks are always taken group first, then message (receive, ack, enqueue), so the
 * operations never deadlock each other. Receiving locks the groups in one statement and reads
 * their heads in the next (both in one call of a function, {@link #RECEIVE}): that statement's
 * snapshot sees every enqueue that committed before the lock, and later enqueues wait for it,
 * so a group is deleted only when truly empty.
 *
 * <p>The message in flight is always its load's head: an enqueue takes the group's lock before
 * its id, so it adds a later id than any message delivered, and only the ack or park of the
 * handle in flight removes one. A delivery notes the message's id on the group row
 * ({@code in_flight_id}), and an ack or park finds its message by it, one lookup in the primary
 * key {@code (load_id, id)} (a walk to the head would visit every entry of the load's messages
 * deleted since the last vacuum); the next delivery looks for the head from that id on, for the
 * same reason. No index is kept on the receipt handle: the handle given out names the load
 * ({@link PgReceiptHandle}), so a group is found by its primary key, and a delivery, which changes no
 * indexed column of the message, writes no index entry for it.
 */
public class PgLoadQueue implements LoadQueue {

    /** What an ingest's batch does once it knows which of its messages are logged (the CTE {@code msg}). */
    protected static final String ENQUEUE_FROM_MSG = QueueStatements.ENQUEUE_FROM_MSG;

    /** How often a long poll looks again when no NOTIFY arrives (a visibility timeout ends silently). */
    private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

    protected final Pool pool;
    private final Clock clock;
    private final Duration visibilityTimeout;
    private final WakeupSignal wakeup;
    private final Wakeups wakeups;

    /**
     * @param visibilityTimeout how long a delivered message stays hidden (longer than a run's deadline)
     * @param wakeup            fired when messages are enqueued (NOTIFY {@code loadflow_queue}); a
     *                          signal nobody fires leaves long polls to poll
     * @param wakeups           told after an enqueue commits: wakes the consumers' {@code wakeup}
     */
    public PgLoadQueue(Pool pool, Clock clock, Duration visibilityTimeout, WakeupSignal wakeup, Wakeups wakeups) {
        if (visibilityTimeout.isNegative() || visibilityTimeout.isZero()) {
            throw new IllegalArgumentException("the visibility timeout must be positive, got " + visibilityTimeout);
        }
        this.pool = pool;
        this.clock = clock;
        this.visibilityTimeout = visibilityTimeout;
        this.wakeup = wakeup;
        this.wakeups = wakeups;
    }

    @Override
    public boolean enqueue(QueueMessage message) {
        boolean queued = Pg.await(pool.preparedQuery(ENQUEUE).execute(Tuple.of(message.loadId(), message.messageId(),
                message.body(), Pg.at(clock.instant())))).rowCount() == 1;
        if (queued) {
            wakeups.wake(PgNotifications.QUEUE);
        }
        return queued;
    }

    /** In one statement: the log is in this queue's database (its {@code event_log}), whatever {@code events} is. */
    @Override
    public Intake enqueueUnlessLogged(QueueMessage message, EventStore events) {
        return enqueueAllUnlessLogged(List.of(message), events).getFirst();
    }

    /**
     * Queues the messages of {@code params} ($1 loads, $2 ids, $3 bodies, $4 now) that the log
     * does not hold, in one statement that looks into the log ({@link #ENQUEUE_ALL_UNLESS_LOGGED});
     * a row per message, in order, saying whether it was logged or queued.
     */
    protected RowSet<Row> enqueue(Tuple params, EventStore events) {
        return Pg.await(pool.preparedQuery(ENQUEUE_ALL_UNLESS_LOGGED).execute(params));
    }

    /** In one statement, as {@link #enqueueUnlessLogged}; a repeated id in the batch is queued once. */
    @Override
    public List<Intake> enqueueAllUnlessLogged(List<QueueMessage> messages, EventStore events) {
        if (messages.isEmpty()) {
            return List.of();
        }
        String[] loads = messages.stream().map(QueueMessage::loadId).toArray(String[]::new);
        String[] ids = messages.stream().map(QueueMessage::messageId).toArray(String[]::new);
        Tuple params = Tuple.tuple().addArrayOfString(loads).addArrayOfString(ids)
                .addArrayOfString(messages.stream().map(QueueMessage::body).toArray(String[]::new))
                .addOffsetDateTime(Pg.at(clock.instant()));
        RowSet<Row> rows = enqueue(params, events);
        List<Intake> intakes = new ArrayList<>(messages.size());
        Set<String> seen = new HashSet<>();
        boolean anyQueued = false;
        int i = 0;
        for (Row row : rows) {
            QueueMessage message = messages.get(i++);
            boolean first = seen.add(message.loadId() + '\u0000' + message.messageId());
            if (row.getBoolean("logged")) {
                intakes.add(Intake.LOGGED);
            } else if (row.getBoolean("queued") && first) {
                intakes.add(Intake.QUEUED);
                anyQueued = true;
            } else {
                intakes.add(Intake.ALREADY_QUEUED);
            }
        }
        if (anyQueued) {
            wakeups.wake(PgNotifications.QUEUE);
        }
        return intakes;
    }

    @Override
    public void enqueueAll(List<QueueMessage> messages) {
        if (messages.isEmpty()) {
            return;
        }
        Pg.await(pool.preparedQuery(ENQUEUE_ALL).execute(Tuple.tuple()
                .addArrayOfString(messages.stream().map(QueueMessage::loadId).toArray(String[]::new))
                .addArrayOfString(messages.stream().map(QueueMessage::messageId).toArray(String[]::new))
                .addArrayOfString(messages.stream().map(QueueMessage::body).toArray(String[]::new))
                .addOffsetDateTime(Pg.at(clock.instant()))));
        wakeups.wake(PgNotifications.QUEUE);
    }

    @Override
    public List<ReceivedMessage> receive(int maxLoads, int perLoad, Duration wait) {
        if (maxLoads < 1 || perLoad < 1) {
            throw new IllegalArgumentException("receive at least one load and one message per load, got "
                    + maxLoads + " and " + perLoad);
        }
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            long seen = wakeup.generation();
            List<ReceivedMessage> received = receiveNow(maxLoads, perLoad);
            long remaining = deadline - System.nanoTime();
            if (!received.isEmpty() || remaining <= 0) {
                return received;
            }
            wakeup.awaitAfter(seen, Duration.ofNanos(Math.min(remaining, POLL_INTERVAL.toNanos())));
        }
    }

    private List<ReceivedMessage> receiveNow(int maxLoads, int perLoad) {
        Instant now = clock.instant();
        RowSet<Row> rows = Pg.await(pool.preparedQuery(RECEIVE).execute(Tuple.of(Pg.at(now), maxLoads,
                Pg.at(now.plus(visibilityTimeout)), perLoad)));
        List<ReceivedMessage> received = new ArrayList<>(rows.size());
        for (Row row : rows) {
            String loadId = row.getString("load_id");
            received.add(new ReceivedMessage(loadId, row.getString("message_id"),
                    row.getString("body"), new PgReceiptHandle(row.getUUID("receipt_handle"), row.getLong("id"), loadId).toString(),
                    row.getInteger("receive_count"), Pg.instant(row, "enqueued_at")));
        }
        return received;
    }

    @Override
    public boolean ack(String receiptHandle) {
        return ackAll(List.of(receiptHandle)) == 1;
    }

    @Override
    public int ackAll(List<String> receiptHandles) {
        List<PgReceiptHandle> handles = receiptHandles.stream().map(PgReceiptHandle::parse).filter(java.util.Objects::nonNull).toList();
        if (handles.isEmpty()) {
            return 0;
        }
        return acked(Pg.await(pool.preparedQuery(ACK_ALL).execute(Tuple.tuple()
                .addArrayOfUUID(handles.stream().map(PgReceiptHandle::uuid).toArray(UUID[]::new))
                .addOffsetDateTime(Pg.at(clock.instant()))
                .addArrayOfString(handles.stream().map(PgReceiptHandle::loadId).toArray(String[]::new))
                .addArrayOfLong(handles.stream().map(PgReceiptHandle::id).toArray(Long[]::new)))));
    }

    /**
     * How many messages an ack deleted. When one of their loads has more queued, its group is
     * visible with work now: this instance's own long polls are woken at once. No NOTIFY goes
     * out for an ack, so without this a poll would sleep until its next look (up to 200 ms).
     */
    private int acked(RowSet<Row> rows) {
        boolean more = false;
        for (Row row : rows) {
            more |= row.getBoolean("more");
        }
        if (more) {
            wakeup.fire();
        }
        return rows.rowCount();
    }

    @Override
    public boolean release(String receiptHandle, Duration delay) {
        PgReceiptHandle handle = PgReceiptHandle.parse(receiptHandle);
        return handle != null && Pg.await(pool.preparedQuery(RELEASE).execute(Tuple.of(handle.uuid(),
                Pg.at(clock.instant().plus(delay)), handle.loadId(), handle.id()))).rowCount() == 1;
    }

    @Override
    public boolean wake(String loadId, String receiptHandle) {
        PgReceiptHandle handle = PgReceiptHandle.parse(receiptHandle);
        boolean woken = handle != null && Pg.await(pool.preparedQuery(WAKE).execute(Tuple.of(loadId, handle.uuid(),
                Pg.at(clock.instant())))).rowCount() == 1;
        if (woken) {
            wakeups.wake(PgNotifications.QUEUE);
        }
        return woken;
    }

    @Override
    public boolean extend(String receiptHandle, Duration visibility) {
        return update(EXTEND, receiptHandle, clock.instant().plus(visibility));
    }

    @Override
    public boolean park(String receiptHandle, String reason) {
        PgReceiptHandle handle = PgReceiptHandle.parse(receiptHandle);
        return handle != null && Pg.await(pool.preparedQuery(PARK)
                .execute(Tuple.of(handle.uuid(), Pg.at(clock.instant()), reason, handle.loadId(), handle.id())))
                .rowCount() == 1;
    }

    private boolean update(String sql, String receiptHandle, Instant at) {
        PgReceiptHandle handle = PgReceiptHandle.parse(receiptHandle);
        return handle != null && Pg.await(pool.preparedQuery(sql).execute(Tuple.of(handle.uuid(), Pg.at(at),
                handle.loadId()))).rowCount() == 1;
    }
}
