-- A failed attempt names its load, as every per-load row does: on Citus the failures live on
-- their load's shard, beside the outbox row (distributed by load_id, co-located). Rows written
-- by the release before carry none; the Citus callback (afterMigrate__distribute_on_citus.sql)
-- fills them in from the outbox before it distributes the table.
ALTER TABLE outbox_failure ADD COLUMN IF NOT EXISTS load_id text;
