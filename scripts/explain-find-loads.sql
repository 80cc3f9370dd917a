-- EXPLAIN the console's load search (PgLoadDirectory) on a database of 1,000,000 loads.
-- Run from the repository root (it creates and drops the database loadflow_find):
--   psql -h 127.0.0.1 -U postgres -v ON_ERROR_STOP=1 -f scripts/explain-find-loads.sql
-- Every migration is applied as Flyway would; then 1,000,000 loads, each assigned (500 clients,
-- 100,000 drivers' numbers) and pinged once, over 30 days; 1,000 held; 2% with a dead outbox row;
-- 5% with a timer waiting; every load dispatched, then 10% moved in transit and 1% delivered
-- (update_stage, load_stage). The statements are PgLoadDirectory's with literal parameters.
\set QUIET on
DROP DATABASE IF EXISTS loadflow_find;
CREATE DATABASE loadflow_find;
\c loadflow_find
\i store-postgres/src/main/resources/db/migration/V1__loadflow_schema.sql
\i store-postgres/src/main/resources/db/migration/V2__load_queue_dead.sql
\i store-postgres/src/main/resources/db/migration/V3__load_stage.sql
\i store-postgres/src/main/resources/db/migration/V4__wakeups_after_commit.sql
\i store-postgres/src/main/resources/db/migration/V5__admin_audit.sql
\i store-postgres/src/main/resources/db/migration/V6__ops_alert_per_death.sql
\i store-postgres/src/main/resources/db/migration/V7__held_load.sql
\i store-postgres/src/main/resources/db/migration/V8__traceparent.sql
\i store-postgres/src/main/resources/db/migration/V9__reader_role.sql
\i store-postgres/src/main/resources/db/migration/V10__partition_event_log.sql
\i store-postgres/src/main/resources/db/migration/V11__retention_indexes.sql
\i store-postgres/src/main/resources/db/migration/V12__channel_circuit.sql
\i store-postgres/src/main/resources/db/migration/V13__queue_tables_autovacuum.sql
\i store-postgres/src/main/resources/db/migration/V14__queue_message_indexes.sql
\i store-postgres/src/main/resources/db/migration/V15__statistics_only_where_planned.sql
\i store-postgres/src/main/resources/db/migration/V16__queue_group_in_flight_id.sql
\i store-postgres/src/main/resources/db/migration/V17__queue_fewer_index_entries.sql
\i store-postgres/src/main/resources/db/migration/V18__queue_delivery_in_place.sql
\i store-postgres/src/main/resources/db/migration/V19__queue_receive_in_one_call.sql
\i store-postgres/src/main/resources/db/migration/V20__runtime_role.sql
\i store-postgres/src/main/resources/db/migration/V21__outbox_due_by_channel.sql
\i store-postgres/src/main/resources/db/migration/V22__queue_runs_of_one_load.sql
\i store-postgres/src/main/resources/db/migration/V23__outbox_ambiguous_sends.sql
\i store-postgres/src/main/resources/db/migration/V24__driver_phone_lookup.sql
\i store-postgres/src/main/resources/db/migration/V25__load_lock_leases.sql
\i store-postgres/src/main/resources/db/migration/V26__acknowledged_before_retention.sql
\i store-postgres/src/main/resources/db/migration/V27__schema_floor.sql
\i store-postgres/src/main/resources/db/migration/V28__find_loads_by_client.sql
\i store-postgres/src/main/resources/db/migration/V29__find_loads_by_stage.sql

INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, body)
SELECT 'load-' || i, 1, 'assign', 'event', 'LoadAssigned', t, t,
       jsonb_build_object('payload', jsonb_build_object('clientId', 'client-' || (i % 500),
                          'driverPhone', '+1555' || lpad((i % 100000)::text, 7, '0'), 'stage', 'dispatched'))
FROM generate_series(0, 999999) i, LATERAL (SELECT timestamptz '2026-11-01' + i * interval '2.592 seconds' AS t) at;
INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, body)
SELECT 'load-' || i, 2, 'ping', 'event', 'LocationPing', t, t, '{"payload": {"risk": "low"}}'
FROM generate_series(0, 999999) i, LATERAL (SELECT timestamptz '2026-11-01' + i * interval '2.592 seconds' + interval '1 minute' AS t) at;
INSERT INTO load_stage (load_id, stage, outbox_id, updated_at)
SELECT 'load-' || i, CASE WHEN i % 100 = 0 THEN 'delivered' ELSE 'in_transit' END, 'x', timestamptz '2026-11-30'
FROM generate_series(0, 999999, 10) i;
INSERT INTO held_load (load_id, message_id, message_type, reason, held_since, state)
SELECT 'load-' || (i * 997), 'm', 'InboundSms', 'unreadable', timestamptz '2026-11-30', 'held' FROM generate_series(0, 999) i;
INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, attempts, available_at, dead_at, created_at)
SELECT 'load-' || i || '/x/1/send_sms', 'load-' || i, 'send_sms', 'sms', '{}', 'dead', 3, timestamptz '2026-11-30',
       timestamptz '2026-11-30', timestamptz '2026-11-30'
FROM generate_series(0, 999999, 50) i;
INSERT INTO timers (timer_id, load_id, fire_at, status, created_at)
SELECT 'tmr:load-' || i || ':x:1', 'load-' || i, timestamptz '2026-12-02', 'scheduled', timestamptz '2026-11-30'
FROM generate_series(0, 999999, 20) i;
VACUUM ANALYZE;

\echo '== by client (2,000 loads), a page of 51'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT load_id FROM (SELECT DISTINCT load_id FROM event_log WHERE type = 'LoadAssigned' AND body -> 'payload' ->> 'clientId' = 'client-7') found
ORDER BY load_id LIMIT 51 OFFSET 0;
\echo '== by client and held'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT load_id FROM (SELECT DISTINCT load_id FROM event_log WHERE type = 'LoadAssigned' AND body -> 'payload' ->> 'clientId' = 'client-7'
                     INTERSECT SELECT load_id FROM held_load) found
ORDER BY load_id LIMIT 51 OFFSET 0;
\echo '== by the driver''s number (10 loads)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT load_id FROM (SELECT DISTINCT load_id FROM event_log WHERE type = 'LoadAssigned' AND body -> 'payload' ->> 'driverPhone' = '+15550001234') found
ORDER BY load_id LIMIT 51 OFFSET 0;
\echo '== at stage delivered (10,000 loads), the first page'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT load_id FROM (
    (SELECT load_id FROM load_stage WHERE stage = 'delivered' ORDER BY load_id LIMIT 51)
    UNION
    (SELECT DISTINCT e.load_id FROM event_log e
     WHERE e.type = 'LoadAssigned' AND e.body -> 'payload' ->> 'stage' = 'delivered'
       AND NOT EXISTS (SELECT 1 FROM load_stage s WHERE s.load_id = e.load_id)
     ORDER BY e.load_id LIMIT 51)) found
ORDER BY load_id LIMIT 51 OFFSET 0;
\echo '== at stage dispatched alone (900,000 loads), the first page'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT load_id FROM (
    (SELECT load_id FROM load_stage WHERE stage = 'dispatched' ORDER BY load_id LIMIT 51)
    UNION
    (SELECT DISTINCT e.load_id FROM event_log e
     WHERE e.type = 'LoadAssigned' AND e.body -> 'payload' ->> 'stage' = 'dispatched'
       AND NOT EXISTS (SELECT 1 FROM load_stage s WHERE s.load_id = e.load_id)
     ORDER BY e.load_id LIMIT 51)) found
ORDER BY load_id LIMIT 51 OFFSET 0;
\echo '== by client and at stage dispatched (all 2,000 of the client''s loads; 900,000 loads dispatched)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT load_id FROM (SELECT DISTINCT load_id FROM event_log WHERE type = 'LoadAssigned' AND body -> 'payload' ->> 'clientId' = 'client-7') found
WHERE coalesce((SELECT s.stage FROM load_stage s WHERE s.load_id = found.load_id),
               (SELECT e.body -> 'payload' ->> 'stage' FROM event_log e
                WHERE e.load_id = found.load_id AND e.type = 'LoadAssigned' ORDER BY e.seq DESC LIMIT 1)) = 'dispatched'
ORDER BY load_id LIMIT 51 OFFSET 0;
\echo '== with dead rows (20,000 loads)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT load_id FROM (SELECT DISTINCT load_id FROM outbox WHERE status = 'dead') found ORDER BY load_id LIMIT 51 OFFSET 0;
\echo '== with an open ask (50,000 loads)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT load_id FROM (SELECT DISTINCT load_id FROM timers WHERE status = 'scheduled') found ORDER BY load_id LIMIT 51 OFFSET 0;
\echo '== active in the last 24 hours (33,000 loads)'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT load_id FROM (SELECT DISTINCT load_id FROM event_log WHERE recorded_at >= timestamptz '2026-11-30') found
ORDER BY load_id LIMIT 51 OFFSET 0;
\echo '== the page''s 50 loads'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY ON)
SELECT c.load_id,
       a.body -> 'payload' ->> 'clientId' AS client_id,
       a.body -> 'payload' ->> 'driverPhone' AS driver_phone,
       coalesce((SELECT s.stage FROM load_stage s WHERE s.load_id = c.load_id), a.body -> 'payload' ->> 'stage') AS stage,
       (SELECT e.recorded_at FROM event_log e WHERE e.load_id = c.load_id ORDER BY e.seq DESC LIMIT 1) AS last_activity,
       EXISTS (SELECT 1 FROM held_load h WHERE h.load_id = c.load_id) AS held,
       (SELECT count(*) FROM outbox o WHERE o.load_id = c.load_id AND o.status = 'dead') AS dead_rows,
       (SELECT count(*) FROM timers t WHERE t.load_id = c.load_id AND t.status = 'scheduled') AS open_timers
FROM unnest((SELECT array_agg('load-' || i) FROM generate_series(1000, 1049) i)) WITH ORDINALITY AS c(load_id, n)
LEFT JOIN LATERAL (SELECT e.body FROM event_log e WHERE e.load_id = c.load_id AND e.type = 'LoadAssigned'
                   ORDER BY e.seq DESC LIMIT 1) a ON true
ORDER BY c.n;

\c postgres
DROP DATABASE loadflow_find;
