-- Finding loads in the console by stage. A load's stage is the one its last update_stage set
-- (load_stage), or, for a load whose stage never changed, its assignments' stage: both are
-- indexed by stage, the log's LoadAssigned entries alone.
--
-- Appends to the log wait while the log's index builds, as with V28. On a large log, build it
-- beforehand without blocking, and this migration then finds it and does nothing:
--   CREATE INDEX event_log_stage_idx ON ONLY event_log ((body -> 'payload' ->> 'stage'), load_id)
--       WHERE type = 'LoadAssigned';
--   -- for each partition event_log_p00 .. event_log_p15:
--   CREATE INDEX CONCURRENTLY event_log_p00_stage_idx ON event_log_p00 ((body -> 'payload' ->> 'stage'), load_id)
--       WHERE type = 'LoadAssigned';
--   ALTER INDEX event_log_stage_idx ATTACH PARTITION event_log_p00_stage_idx;
CREATE INDEX IF NOT EXISTS event_log_stage_idx ON event_log ((body -> 'payload' ->> 'stage'), load_id)
    WHERE type = 'LoadAssigned';
CREATE INDEX IF NOT EXISTS load_stage_stage_idx ON load_stage (stage, load_id);
