-- A receive in one round trip. It was a transaction of two statements: lock the visible groups,
-- then deliver their heads, each waiting for its answer, so BEGIN, the lock, the delivery and
-- COMMIT were four round trips, and an empty poll three. This function runs the same two
-- statements, one after the other, in one call. A VOLATILE plpgsql function takes a new
-- snapshot for each statement it runs (under READ COMMITTED, as every loadflow connection is):
-- the delivery still sees every enqueue that committed before its groups were locked, and an
-- enqueue that commits later waited for the lock, so a group is deleted only when truly empty,
-- as before. (One statement doing both would read the heads on the snapshot taken before the
-- locks and could delete a group whose new message it did not see.)
--
-- $1 now, $2 at most this many groups, $3 the end of the visibility timeout. Returns the
-- messages delivered, by id. The statements' own comments are in PgLoadQueue (RECEIVE).
CREATE FUNCTION load_queue_receive(now_at timestamptz, max_groups int, hidden_until timestamptz)
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
    -- their heads, looked for from the id each last delivered on; an emptied group is deleted
    RETURN QUERY
    WITH heads AS (
        SELECT grp.load_id, head.id
        FROM unnest(group_loads, group_since) AS grp(load_id, since)
        LEFT JOIN LATERAL (SELECT q.id FROM load_queue q WHERE q.load_id = grp.load_id AND q.id >= grp.since
                           ORDER BY q.id LIMIT 1) head ON true),
    delivered AS (
        UPDATE load_queue q SET receipt_handle = gen_random_uuid(), receive_count = q.receive_count + 1
        FROM heads WHERE q.load_id = ANY(group_loads) AND q.id = heads.id
        RETURNING q.id, q.load_id, q.message_id, q.body, q.receipt_handle, q.receive_count, q.enqueued_at),
    hidden AS (
        UPDATE load_queue_group g SET in_flight_until = hidden_until, in_flight_handle = d.receipt_handle,
                                      in_flight_id = d.id
        FROM delivered d WHERE g.load_id = ANY(group_loads) AND g.load_id = d.load_id),
    emptied AS (
        DELETE FROM load_queue_group g USING heads
        WHERE g.load_id = ANY(group_loads) AND g.load_id = heads.load_id AND heads.id IS NULL)
    SELECT d.id, d.load_id, d.message_id, d.body::text, d.receipt_handle, d.receive_count, d.enqueued_at
    FROM delivered d ORDER BY d.id;
END
$$;
