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

    /** Creates the group if needed and takes its lock, then inserts the message. */
    static final String ENQUEUE = """
            WITH grp AS (
                INSERT INTO load_queue_group (load_id, visible_at) VALUES ($1, $4)
                ON CONFLICT (load_id) DO UPDATE SET load_id = excluded.load_id
                RETURNING load_id)
            INSERT INTO load_queue (load_id, message_id, body, enqueued_at)
            SELECT grp.load_id, $2, $3::text::jsonb, $4 FROM grp
            ON CONFLICT (load_id, message_id) DO NOTHING""";

    /**
     * ENQUEUE_ALL unless the load's log has the event (an inbound event's message id is its entry
     * id): one round trip for a batch of ingests. Returns, per message in order, whether it was
     * logged and whether it was queued. The log check is a scalar subquery per message (one
     * lookup in the load's partition), never an EXISTS the planner could hash over the whole log.
     */
    static final String ENQUEUE_ALL_UNLESS_LOGGED = """
            WITH msg AS MATERIALIZED (
                SELECT m.load_id, m.message_id, m.body, m.ord,
                       (SELECT true FROM event_log e WHERE e.load_id = m.load_id AND e.entry_id = m.message_id) IS NOT NULL
                           AS logged
                FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS m(load_id, message_id, body, ord)),
            """ + Enqueue.FROM_MSG;

    /** What an ingest's batch does once it knows which of its messages are logged (the CTE {@code msg}). */
    protected static final String ENQUEUE_FROM_MSG = Enqueue.FROM_MSG;

    private static final class Enqueue {

        static final String FROM_MSG = """
            grp AS (
                INSERT INTO load_queue_group (load_id, visible_at)
                SELECT DISTINCT load_id, $4::timestamptz FROM msg WHERE NOT logged ORDER BY load_id
                ON CONFLICT (load_id) DO UPDATE SET load_id = excluded.load_id
                RETURNING load_id),
            queued AS (
                INSERT INTO load_queue (load_id, message_id, body, enqueued_at)
                SELECT msg.load_id, msg.message_id, msg.body::jsonb, $4 FROM msg JOIN grp USING (load_id)
                WHERE NOT msg.logged ORDER BY msg.ord
                ON CONFLICT (load_id, message_id) DO NOTHING
                RETURNING load_id, message_id)
            SELECT msg.logged,
                   (SELECT true FROM queued q WHERE q.load_id = msg.load_id AND q.message_id = msg.message_id LIMIT 1)
                       IS NOT NULL AS queued
            FROM msg ORDER BY msg.ord""";

        private Enqueue() {
        }
    }

    /** ENQUEUE for many: groups are created and locked in load id order (no deadlock between two of these). */
    static final String ENQUEUE_ALL = """
            WITH msg AS (
                SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS m(load_id, message_id, body, ord)),
            grp AS (
                INSERT INTO load_queue_group (load_id, visible_at)
                SELECT DISTINCT load_id, $4::timestamptz FROM msg ORDER BY load_id
                ON CONFLICT (load_id) DO UPDATE SET load_id = excluded.load_id
                RETURNING load_id)
            INSERT INTO load_queue (load_id, message_id, body, enqueued_at)
            SELECT msg.load_id, msg.message_id, msg.body::jsonb, $4 FROM msg JOIN grp USING (load_id) ORDER BY msg.ord
            ON CONFLICT (load_id, message_id) DO NOTHING""";

    /**
     * A receive, in one round trip: {@code load_queue_receive} (migration V19) locks the visible
     * groups, then delivers their heads, each in a statement of its own, so the delivery reads on
     * a snapshot taken after the locks (a group is deleted only when truly empty). $1 now, $2 at
     * most this many groups, $3 the end of the visibility timeout.
     *
     * <p>The lock takes the groups given back longest ago first, with the id each last delivered;
     * its scan by {@code visible_at} passes over the groups in flight (as many as the consumers
     * hold at once). The delivery bounds each join to a table by
     * {@code load_id = ANY(the locked loads)} as well, so it stays an index lookup of those loads
     * whatever join the planner picks (a backlog of messages is never scanned). A head is looked
     * for from the id its group last delivered on: no message of the load is older (it was the
     * head then, and later enqueues add later ids), and the index entries of the load's messages
     * acked before it, dead but not yet vacuumed, are not walked. $4: at most this many messages
     * of one load, its run (migration V22): the head and those right behind it, under one handle.
     */
    static final String RECEIVE = """
            SELECT id, load_id, message_id, body, receipt_handle, receive_count, enqueued_at
            FROM load_queue_receive($1, $2, $4, $3)""";

    /**
     * Acks messages in flight: $1 the handles' uuids, $3 their loads, $4 the ids the handles name.
     * The groups are locked in load id order first, as ENQUEUE_ALL does, so the two never
     * deadlock. A group is freed when the last message of its run is acked. Returns, per acked message, whether it freed its group with more queued (a scalar
     * subquery on the primary key, never an EXISTS that could be hashed).
     */
    static final String ACK_ALL = """
            WITH acked AS (
                SELECT * FROM unnest($3::text[], $1::uuid[], $4::bigint[]) AS a(load_id, handle, id)),
            locked AS MATERIALIZED (
                SELECT g.load_id, g.in_flight_handle, g.in_flight_id, g.in_flight_last FROM load_queue_group g
                WHERE g.load_id = ANY($3) AND g.in_flight_handle = ANY($1)
                ORDER BY g.load_id FOR UPDATE OF g),
            gone AS (
                DELETE FROM load_queue q USING acked a, locked grp
                WHERE q.load_id = ANY($3) AND q.load_id = a.load_id AND grp.load_id = a.load_id
                  AND grp.in_flight_handle = a.handle AND q.receipt_handle = a.handle
                  AND q.id = a.id
                RETURNING q.load_id, q.id, q.id >= grp.in_flight_last AS frees),
            freed AS (
                UPDATE load_queue_group g SET visible_at = $2, in_flight_handle = NULL
                FROM gone WHERE g.load_id = ANY($3) AND g.load_id = gone.load_id AND gone.frees)
            SELECT gone.frees
                   AND (SELECT true FROM load_queue n WHERE n.load_id = gone.load_id AND n.id > gone.id LIMIT 1) IS NOT NULL
                       AS more
            FROM gone""";

    /**
     * Moves the message in flight ($5 its id) to load_queue_dead and frees its
     * group, group lock first; the messages of its run behind it were not run (BEHIND).
     */
    static final String PARK = """
            WITH grp AS (
                UPDATE load_queue_group SET visible_at = $2, in_flight_handle = NULL
                WHERE load_id = $4 AND in_flight_handle = $1
                RETURNING load_id, in_flight_id, in_flight_last),
            gone AS (
                DELETE FROM load_queue q USING grp
                WHERE q.load_id = grp.load_id AND q.id = $5 AND q.receipt_handle = $1
                RETURNING q.id, q.load_id, q.message_id, q.body, q.enqueued_at, q.receive_count),
            behind AS (
                UPDATE load_queue q SET receive_count = q.receive_count - 1 FROM gone, grp
                WHERE q.load_id = $4 AND q.load_id = gone.load_id AND q.id > gone.id AND q.id <= grp.in_flight_last
                  AND q.receipt_handle = $1)
            INSERT INTO load_queue_dead (load_id, message_id, body, enqueued_at, receive_count, parked_at, reason)
            SELECT load_id, message_id, body, enqueued_at, receive_count, $2, $3 FROM gone
            ON CONFLICT (load_id, message_id) DO UPDATE
                SET body = excluded.body, receive_count = excluded.receive_count,
                    parked_at = excluded.parked_at, reason = excluded.reason, acknowledged_at = NULL""";

    /**
     * Frees the group with {@code visible_at} $2; the messages of the run behind the one given
     * back ($4: its id) were not run: their delivery is taken off their receive count (BEHIND), so waiting behind a failing
     * or held head never makes a message poison. One row if the handle was in flight.
     */
    static final String RELEASE = """
            WITH grp AS (
                UPDATE load_queue_group SET visible_at = $2, in_flight_handle = NULL
                WHERE load_id = $3 AND in_flight_handle = $1
                RETURNING load_id, in_flight_last),
            behind AS (
                UPDATE load_queue q SET receive_count = q.receive_count - 1 FROM grp
                WHERE q.load_id = $3 AND q.load_id = grp.load_id AND q.id > $4 AND q.id <= grp.in_flight_last
                  AND q.receipt_handle = $1)
            SELECT load_id FROM grp""";

    /** The group given back (no handle in flight) whose head was last delivered as $2: visible now. */
    static final String WAKE = """
            UPDATE load_queue_group g SET visible_at = $3
            WHERE g.load_id = $1 AND g.in_flight_handle IS NULL AND g.visible_at > $3
              AND (SELECT q.receipt_handle FROM load_queue q WHERE q.load_id = $1 ORDER BY q.id LIMIT 1) = $2""";

    static final String EXTEND = "UPDATE load_queue_group SET in_flight_until = $2 WHERE load_id = $3 AND in_flight_handle = $1";

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
