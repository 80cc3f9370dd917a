package dev.loadflow.store.queue;

/** The statements of {@link PgLoadQueue}, each written once; a message's group is its load. */
final class QueueStatements {

    private QueueStatements() {
    }

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
    static final String ENQUEUE_FROM_MSG = Enqueue.FROM_MSG;

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
}
