-- What releases before 0.2.0 wrote into the load queue, rewritten in the form 0.2.0 and later
-- write, so the code reads one form only. Nothing of it is left on a database that ran 0.2.0
-- for longer than a visibility timeout, but a migration does not assume so:
--
-- * a group in flight from a delivery before V18 gets its in_flight_until from the visible_at
--   that hid it, one from before V16 the id of the message it has in flight, and one from
--   before V22 a run of that one message;
-- * a held load's receipt handle of a delivery before V22 (uuid:load) or before V17 (a bare
--   uuid) names the message it had in flight (uuid/id:load), or nothing when none has it now
--   (a stale handle: the hold's recheck then waits for the visibility timeout, as it would);
-- * load_queue_receive without runs (V19), which only releases before 0.2.0 called, goes, and
--   the receive reads in_flight_until alone.
--
-- Releases from 0.2.0 on never write or call any of it, so they run beside this schema.
UPDATE load_queue_group g
SET in_flight_id = (SELECT min(q.id) FROM load_queue q WHERE q.load_id = g.load_id AND q.receipt_handle = g.in_flight_handle)
WHERE g.in_flight_handle IS NOT NULL AND g.in_flight_id IS NULL;

UPDATE load_queue_group
SET in_flight_until = coalesce(in_flight_until, visible_at), in_flight_last = coalesce(in_flight_last, in_flight_id)
WHERE in_flight_handle IS NOT NULL AND (in_flight_until IS NULL OR in_flight_last IS NULL);

UPDATE held_load h
SET receipt_handle = (SELECT q.receipt_handle::text || '/' || q.id || ':' || h.load_id FROM load_queue q
                      WHERE q.load_id = h.load_id AND q.receipt_handle = left(h.receipt_handle, 36)::uuid
                      ORDER BY q.id LIMIT 1)
WHERE h.receipt_handle ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(:.+)?$';

DROP FUNCTION load_queue_receive(timestamptz, int, timestamptz);

-- load_queue_receive (V22): a group is in flight while its handle is set, until in_flight_until.
CREATE OR REPLACE FUNCTION load_queue_receive(now_at timestamptz, max_groups int, per_group int, hidden_until timestamptz)
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
            AND (grp.in_flight_handle IS NULL OR grp.in_flight_until <= now_at)
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
