-- Finding loads in the console by client: the client's assignments from an index of the
-- LoadAssigned entries alone (as V24 does for the driver's number).
--
-- Appends to the log wait while this index builds (it reads every partition once; the
-- LoadAssigned entries alone are indexed). On a large log, build it beforehand without blocking,
-- outside any migration (CREATE INDEX CONCURRENTLY cannot run inside one, nor beside Flyway's
-- lock), and this migration then finds it and does nothing:
--   CREATE INDEX event_log_client_idx ON ONLY event_log ((body -> 'payload' ->> 'clientId'), recorded_at)
--       WHERE type = 'LoadAssigned';
--   -- for each partition event_log_p00 .. event_log_p15:
--   CREATE INDEX CONCURRENTLY event_log_p00_client_idx ON event_log_p00 ((body -> 'payload' ->> 'clientId'), recorded_at)
--       WHERE type = 'LoadAssigned';
--   ALTER INDEX event_log_client_idx ATTACH PARTITION event_log_p00_client_idx;
CREATE INDEX IF NOT EXISTS event_log_client_idx ON event_log ((body -> 'payload' ->> 'clientId'), recorded_at)
    WHERE type = 'LoadAssigned';
