-- A receive may hand out a run of one load: its head and the messages queued right behind it,
-- in order, so a busy load's backlog (a telematics device replaying an hour of pings) is decided
-- in one go, one log read and one append, rather than one message per round of receive, run and
-- ack. The whole run is in flight under one handle (the group's in_flight_handle, written on each
-- of its messages); in_flight_id is its first message and in_flight_last its last. An ack deletes
-- the message its handle names and frees the group once the run's last message is acked; a
-- release or park frees the group at once, and the run's messages behind the one given back,
-- which were not run, have this delivery taken off their receive count. Groups delivered
-- without a run (in_flight_last null) are freed by any ack, as before.
ALTER TABLE load_queue_group ADD COLUMN in_flight_last bigint;

-- load_queue_receive (V19) with runs: $3 at most this many messages per group. The three-argument
-- function stays for the release before this one (a rolling upgrade runs both).
CREATE FUNCTION load_queue_receive(now_at timestamptz, max_groups int, per_group int, hidden_until timestamptz)
    RETURNS TABLE (id bigint, load_id text, message_id text, body text, receipt_handle uuid,
                   receive_count int, enqueued_at timestamptz)
    LANGUAGE plpgsql VOLATILE
AS $$
#variable_conflict use_column
DECLARE
    group_loads text[];
    group_since bigint[];
BEGIN
    -- the groups to deliver, with the id each last delivered (none: 0): no message of the load is older
    SELECT array_agg(g.load_id), array_agg(coalesce(g.in_flight_id, 0))
    INTO group_loads, group_since
    FROM (SELECT grp.load_id, grp.in_flight_id FROM load_queue_group grp
          WHERE grp.visible_at <= now_at
            AND (grp.in_flight_handle IS NULL OR coalesce(grp.in_flight_until, grp.visible_at) <= now_at)
          ORDER BY grp.visible_at
          LIMIT max_groups
          FOR UPDATE SKIP LOCKED) g;
    IF group_loads IS NULL THEN
        RETURN;
    END IF;
    -- each group's run, looked for from the id it last delivered on, under one new handle per
    -- group (materialized: the handle is drawn once per group, not once per message); an
    -- emptied group is deleted
    RETURN QUERY
    WITH groups AS MATERIALIZED (
        SELECT g.load_id, g.since, gen_random_uuid() AS handle
        FROM unnest(group_loads, group_since) AS g(load_id, since)),
    runs AS (
        SELECT groups.load_id, groups.handle, run.id
        FROM groups
        LEFT JOIN LATERAL (SELECT q.id FROM load_queue q WHERE q.load_id = groups.load_id AND q.id >= groups.since
                           ORDER BY q.id LIMIT per_group) run ON true),
    delivered AS (
        UPDATE load_queue q SET receipt_handle = runs.handle, receive_count = q.receive_count + 1
        FROM runs WHERE q.load_id = ANY(group_loads) AND q.load_id = runs.load_id AND q.id = runs.id
        RETURNING q.id, q.load_id, q.message_id, q.body, q.receipt_handle, q.receive_count, q.enqueued_at),
    hidden AS (
        UPDATE load_queue_group g SET in_flight_until = hidden_until, in_flight_handle = r.handle,
                                      in_flight_id = r.first_id, in_flight_last = r.last_id
        FROM (SELECT runs.load_id, runs.handle, min(runs.id) AS first_id, max(runs.id) AS last_id
              FROM runs WHERE runs.id IS NOT NULL GROUP BY runs.load_id, runs.handle) r
        WHERE g.load_id = ANY(group_loads) AND g.load_id = r.load_id),
    emptied AS (
        DELETE FROM load_queue_group g USING runs
        WHERE g.load_id = ANY(group_loads) AND g.load_id = runs.load_id AND runs.id IS NULL)
    SELECT d.id, d.load_id, d.message_id, d.body::text, d.receipt_handle, d.receive_count, d.enqueued_at
    FROM delivered d ORDER BY min(d.id) OVER (PARTITION BY d.load_id), d.id;
END
$$;
