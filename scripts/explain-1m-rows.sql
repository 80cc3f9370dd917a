-- EXPLAIN the claim and read queries against 1,000,000-row tables.
-- Run from the repository root (it creates and drops the database loadflow_explain):
--   psql -h 127.0.0.1 -U postgres -v ON_ERROR_STOP=1 -f scripts/explain-1m-rows.sql
-- The statements are the stores' own SQL (PgEventStore, PgOutbox, PgTimerStore, PgLoadQueue)
-- with literal parameters; writes run inside a rolled-back transaction.
\set QUIET on
DROP DATABASE IF EXISTS loadflow_explain;
CREATE DATABASE loadflow_explain;
\c loadflow_explain
\i store-postgres/src/main/resources/db/migration/V1__loadflow_schema.sql
\i store-postgres/src/main/resources/db/migration/V14__queue_message_indexes.sql
\i store-postgres/src/main/resources/db/migration/V16__queue_group_in_flight_id.sql
\i store-postgres/src/main/resources/db/migration/V17__queue_fewer_index_entries.sql
\i store-postgres/src/main/resources/db/migration/V18__queue_delivery_in_place.sql

-- event_log: 20,000 loads x 50 entries
INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, body)
SELECT 'load-' || (i / 50), i % 50 + 1, 'evt-' || i, 'event', 'LocationPing',
       timestamptz '2026-11-01' + i * interval '1 second', timestamptz '2026-11-01' + i * interval '1 second', '{}'
FROM generate_series(0, 999999) i;

-- outbox: 97% dispatched, 2% dead, 1% pending (half of them due)
INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, attempts, available_at,
                    dispatched_at, dead_at, created_at)
SELECT 'load-' || (i / 50) || '/ask:eta_request:p' || i || '/1/send_sms', 'load-' || (i / 50), 'send_sms', 'sms', '{}',
       CASE WHEN i % 100 = 0 THEN 'pending' WHEN i % 50 = 1 THEN 'dead' ELSE 'dispatched' END,
       1, timestamptz '2026-11-30 07:00' + (i % 200 - 100) * interval '1 second',
       CASE WHEN i % 100 <> 0 AND i % 50 <> 1 THEN timestamptz '2026-11-01' + i * interval '1 second' END,
       CASE WHEN i % 50 = 1 THEN timestamptz '2026-11-01' + i * interval '1 second' END,
       timestamptz '2026-11-01' + i * interval '1 second'
FROM generate_series(0, 999999) i;

-- timers: 95% fired or cancelled, 5% scheduled over the next hours
INSERT INTO timers (timer_id, load_id, fire_at, status, fired_at, created_at)
SELECT 'tmr:load-' || (i / 50) || ':ask:eta_request:p' || i || ':1', 'load-' || (i / 50),
       timestamptz '2026-11-30 07:00' + (i % 36000 - 1800) * interval '1 second',
       CASE WHEN i % 20 = 0 THEN 'scheduled' ELSE 'fired' END,
       CASE WHEN i % 20 <> 0 THEN timestamptz '2026-11-01' + i * interval '1 second' END,
       timestamptz '2026-11-01'
FROM generate_series(0, 999999) i;

-- load_queue: 1,000,000 messages over 10,000 loads (a deep backlog). 500 groups in flight, given
-- back before any other (a receive passes over them first), 500 given back with a delay (until
-- 09:00), the rest visible.
INSERT INTO load_queue (load_id, message_id, body, enqueued_at)
SELECT 'load-' || (i % 10000), 'm-' || i, '{}', timestamptz '2026-11-30 07:00' + i * interval '1 millisecond'
FROM generate_series(0, 999999) i;
INSERT INTO load_queue_group (load_id, visible_at, in_flight_handle, in_flight_until)
SELECT 'load-' || g,
       CASE WHEN g % 20 = 1 THEN timestamptz '2026-11-30 06:00' WHEN g % 20 = 3 THEN timestamptz '2026-11-30 09:00'
            ELSE timestamptz '2026-11-30 07:00' + g * interval '1 millisecond' END,
       CASE WHEN g % 20 = 1 THEN gen_random_uuid() END,
       CASE WHEN g % 20 = 1 THEN timestamptz '2026-11-30 08:05' END
FROM generate_series(0, 9999) g;
ANALYZE;
\set QUIET off

\echo '== EventStore.read: one load''s log'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT seq, kind, recorded_at, body::text AS body FROM event_log WHERE load_id = 'load-12345' ORDER BY seq;

\echo '== EventStore.readAfter: what 16 loads logged after version 40 (a worker batch)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT k.load_id, l.seq, l.kind, l.recorded_at, l.body::text AS body
FROM unnest(ARRAY(SELECT 'load-' || (i * 997) FROM generate_series(1, 16) i), array_fill(40::bigint, ARRAY[16])) AS k(load_id, after)
CROSS JOIN LATERAL (SELECT e.seq, e.kind, e.recorded_at, e.body FROM event_log e
                    WHERE e.load_id = k.load_id AND e.seq > k.after ORDER BY e.seq) l
ORDER BY k.load_id, l.seq;

\echo '== EventStore.append: version check (the load''s last seq)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT coalesce((SELECT max(seq) FROM event_log WHERE load_id = 'load-12345'), 0);

BEGIN;
\echo '== Outbox.pending: claim 100 due rows'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
WITH due AS MATERIALIZED (
    SELECT outbox_id AS due_id FROM outbox WHERE status = 'pending' AND available_at <= '2026-11-30 07:00+00'
    ORDER BY available_at LIMIT 100 FOR UPDATE SKIP LOCKED)
UPDATE outbox SET claim_token = gen_random_uuid(), claimed_until = '2026-11-30 07:01:30+00', available_at = '2026-11-30 07:01:30+00',
                  attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, '2026-11-30 07:00+00')
FROM due WHERE outbox_id = due.due_id;
ROLLBACK;

\echo '== Outbox.dead: newest parked rows of one action type'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT outbox_id FROM outbox WHERE status = 'dead' AND ('send_sms'::text IS NULL OR action_type = 'send_sms')
ORDER BY dead_at DESC, outbox_id LIMIT 50 OFFSET 0;

BEGIN;
\echo '== TimerStore.due: claim 100 due timers'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
WITH due AS MATERIALIZED (
    SELECT timer_id AS due_id FROM timers WHERE status = 'scheduled' AND fire_at <= '2026-11-30 07:00+00'
      AND (claimed_until IS NULL OR claimed_until <= '2026-11-30 07:00+00')
    ORDER BY fire_at LIMIT 100 FOR UPDATE SKIP LOCKED)
UPDATE timers SET claimed_until = '2026-11-30 07:00:30+00'
FROM due WHERE timer_id = due.due_id;
ROLLBACK;

\echo '== TimerStore.nextFireAt'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT fire_at FROM timers WHERE status = 'scheduled' ORDER BY fire_at LIMIT 1;

BEGIN;
\echo '== LoadQueue.receive: lock 10 visible groups, past the 500 in flight'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT load_id, in_flight_id FROM load_queue_group
WHERE visible_at <= '2026-11-30 08:00+00' AND (in_flight_handle IS NULL OR coalesce(in_flight_until, visible_at) <= '2026-11-30 08:00+00')
ORDER BY visible_at LIMIT 10 FOR UPDATE SKIP LOCKED;
\echo '== LoadQueue.receive: the head message of each locked group'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT grp.load_id, head.id FROM unnest(ARRAY['load-0','load-2','load-4','load-6','load-8','load-10','load-12','load-14','load-16','load-18'],
                                        array_fill(0::bigint, ARRAY[10])) AS grp(load_id, since)
LEFT JOIN LATERAL (SELECT q.id FROM load_queue q WHERE q.load_id = grp.load_id AND q.id >= grp.since ORDER BY q.id LIMIT 1) head ON true;
ROLLBACK;

BEGIN;
UPDATE load_queue SET receipt_handle = '6f1c2a64-0c3e-4a53-9d43-3b1fd4a7a001'
WHERE load_id = 'load-1' AND id = (SELECT min(id) FROM load_queue WHERE load_id = 'load-1');
UPDATE load_queue_group SET in_flight_handle = '6f1c2a64-0c3e-4a53-9d43-3b1fd4a7a001',
       in_flight_id = (SELECT min(id) FROM load_queue WHERE load_id = 'load-1') WHERE load_id = 'load-1';
\echo '== LoadQueue.ack: the head in flight of a load with 100 messages queued'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
WITH grp AS (
    UPDATE load_queue_group SET visible_at = '2026-11-30 07:00+00', in_flight_handle = NULL
    WHERE load_id = 'load-1' AND in_flight_handle = '6f1c2a64-0c3e-4a53-9d43-3b1fd4a7a001'
    RETURNING load_id, in_flight_id)
DELETE FROM load_queue q USING grp
WHERE q.load_id = grp.load_id AND q.id = coalesce(grp.in_flight_id, (SELECT min(h.id) FROM load_queue h WHERE h.load_id = grp.load_id))
  AND q.receipt_handle = '6f1c2a64-0c3e-4a53-9d43-3b1fd4a7a001'
RETURNING (SELECT true FROM load_queue n WHERE n.load_id = q.load_id AND n.id > q.id LIMIT 1) IS NOT NULL AS more;
ROLLBACK;

\c postgres
DROP DATABASE loadflow_explain;
