-- Autovacuum analyzes the busy tables about once a minute, and an ANALYZE samples up to 30,000
-- rows of every column: for the log and the outbox that meant detoasting and comparing every
-- sampled JSON body, trace header and id that no statement ever filters, joins or sorts on.
-- On the deployment benchmark's log (16 partitions of 15,000 rows) a partition took 140 ms,
-- 51 ms without them, and the outbox (55,000 rows) 520 ms, 220 to 270 without: seconds of the server's CPU each minute, and each
-- ANALYZE makes every connection plan its statements on that table again. Statistics stay on
-- the columns the stores' statements filter, join or sort on (load and entry ids, seq, kind,
-- recorded_at, status, available_at, claims, created_at, action_type, attempt...). On a
-- partitioned table the setting reaches every partition.
ALTER TABLE event_log
    ALTER COLUMN type SET STATISTICS 0,
    ALTER COLUMN occurred_at SET STATISTICS 0,
    ALTER COLUMN correlation_id SET STATISTICS 0,
    ALTER COLUMN causation_id SET STATISTICS 0,
    ALTER COLUMN body SET STATISTICS 0;
ALTER TABLE event_log_archive
    ALTER COLUMN type SET STATISTICS 0,
    ALTER COLUMN occurred_at SET STATISTICS 0,
    ALTER COLUMN correlation_id SET STATISTICS 0,
    ALTER COLUMN causation_id SET STATISTICS 0,
    ALTER COLUMN body SET STATISTICS 0;
ALTER TABLE outbox
    ALTER COLUMN payload SET STATISTICS 0,
    ALTER COLUMN last_failure SET STATISTICS 0,
    ALTER COLUMN receipt SET STATISTICS 0,
    ALTER COLUMN correlation_id SET STATISTICS 0,
    ALTER COLUMN causation_id SET STATISTICS 0,
    ALTER COLUMN traceparent SET STATISTICS 0;
ALTER TABLE timers
    ALTER COLUMN correlation_id SET STATISTICS 0,
    ALTER COLUMN traceparent SET STATISTICS 0;
ALTER TABLE load_queue ALTER COLUMN body SET STATISTICS 0;
ALTER TABLE load_queue_dead ALTER COLUMN body SET STATISTICS 0;
