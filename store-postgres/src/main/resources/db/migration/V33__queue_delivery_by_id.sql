-- A delivery updates the messages of its runs where the runs found them. Until now its update
-- joined the queue by load and id (and named the groups' loads, load_id = ANY(group_loads)):
-- once autovacuum's ANALYZE had seen a busy load's queue nearly empty (its acked messages dead
-- but not yet vacuumed), a plan that believed the table held a row or two scanned the load's
-- index entries, or all of them, to find the run's message, visiting every acked message since
-- the last vacuum (491 buffers after 300, where the lookup reads 5). Found by their row
-- versions, the messages can only be read by those (a TID scan) or by a scan of the table's
-- pages, which the planner costs by their number. The function is otherwise that of V31; the
-- call is the same, so releases on V32 call it unchanged.
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
    -- group (materialized: the handle is drawn once per group, not once per message), and
    -- delivered where they were found (their row versions, read under the groups' locks, which
    -- every other change to a group's messages takes first); an emptied group is deleted
    RETURN QUERY
    WITH groups AS MATERIALIZED (
        SELECT g.load_id, g.since, gen_random_uuid() AS handle
        FROM unnest(group_loads, group_since) AS g(load_id, since)),
    runs AS (
        SELECT groups.load_id, groups.handle, run.id, run.at
        FROM groups
        LEFT JOIN LATERAL (SELECT q.id, q.ctid AS at FROM load_queue q WHERE q.load_id = groups.load_id AND q.id >= groups.since
                           ORDER BY q.id LIMIT per_group) run ON true),
    delivered AS (
        UPDATE load_queue q SET receipt_handle = runs.handle, receive_count = q.receive_count + 1
        FROM runs WHERE q.ctid = ANY(ARRAY(SELECT runs.at FROM runs WHERE runs.at IS NOT NULL)) AND q.ctid = runs.at
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
