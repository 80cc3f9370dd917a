-- On Citus, after every migration: the schema distributed by load_id. CitusSchema runs this after
-- each migrate where the citus extension is installed (on plain PostgreSQL nothing runs). It is
-- idempotent: a table already distributed is left as it is, so a later migration
-- that adds a per-load table needs only to be named below.
--
-- * Distributed by load_id, co-located with event_log (a run's read, append and outbox insert go
--   to one shard): the log and its archive, the outbox and its failures, timers, held loads,
--   stages, ops alerts and the load locks. Citus
--   allows a primary key or a unique constraint only if it holds load_id: those of outbox,
--   outbox_failure, timers and ops_alert are widened first (outbox_id and timer_id name their
--   load already, so nothing that was unique stops being so).
-- * A reference table (a copy on every node): channel_circuit, a handful of rows.
-- * Local to the coordinator: the load queue, its groups and dead letters (a receive locks the
--   visible groups of every load at once, which Citus cannot do across shards; a message lives
--   seconds, so the queue stays small), the unrun receives of an SQS queue's messages (a handful
--   of rows, written only when messages go back unrun), admin_audit (read by time), processed_event (by handler
--   and event), schema_floor and Flyway's history.
-- Citus's own catalogue is read from pg_catalog (pg_dist_partition), so a search_path that names
-- only the loadflow schema does.
DO $distribute$
DECLARE
    per_load CONSTANT text[] := ARRAY['event_log', 'event_log_archive', 'outbox', 'outbox_failure', 'timers',
        'held_load', 'load_stage', 'ops_alert', 'load_lock'];
    t text;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        RETURN;
    END IF;

    IF NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'outbox'::regclass) THEN
        -- failures written before V30 name no load: their row's
        UPDATE outbox_failure f SET load_id = o.load_id FROM outbox o WHERE o.outbox_id = f.outbox_id AND f.load_id IS NULL;
        ALTER TABLE outbox_failure ALTER COLUMN load_id SET NOT NULL;
        ALTER TABLE outbox_failure DROP CONSTRAINT IF EXISTS outbox_failure_outbox_id_fkey;
        ALTER TABLE outbox_failure DROP CONSTRAINT outbox_failure_pkey,
            ADD CONSTRAINT outbox_failure_pkey PRIMARY KEY (load_id, outbox_id, attempt, failed_at);
        ALTER TABLE outbox DROP CONSTRAINT outbox_pkey, ADD CONSTRAINT outbox_pkey PRIMARY KEY (load_id, outbox_id);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'timers'::regclass) THEN
        ALTER TABLE timers DROP CONSTRAINT timers_pkey, ADD CONSTRAINT timers_pkey PRIMARY KEY (load_id, timer_id);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'ops_alert'::regclass) THEN
        ALTER TABLE ops_alert DROP CONSTRAINT ops_alert_pkey, ADD CONSTRAINT ops_alert_pkey PRIMARY KEY (load_id, id);
        ALTER TABLE ops_alert DROP CONSTRAINT ops_alert_outbox_kind_death_key,
            ADD CONSTRAINT ops_alert_outbox_kind_death_key UNIQUE (load_id, outbox_id, kind, death);
    END IF;

    FOREACH t IN ARRAY per_load LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = t::regclass) THEN
            PERFORM create_distributed_table(t, 'load_id',
                colocate_with => CASE WHEN t = 'event_log' THEN 'default' ELSE 'event_log' END);
        END IF;
    END LOOP;

    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'outbox_failure_outbox_fkey' AND conrelid = 'outbox_failure'::regclass) THEN
        -- a row's failures go with it, as before, now within its shard
        ALTER TABLE outbox_failure ADD CONSTRAINT outbox_failure_outbox_fkey FOREIGN KEY (load_id, outbox_id)
            REFERENCES outbox (load_id, outbox_id) ON DELETE CASCADE;
    END IF;

    IF NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'channel_circuit'::regclass) THEN
        PERFORM create_reference_table('channel_circuit');
    END IF;
END
$distribute$;
