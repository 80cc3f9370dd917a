-- What nobody handled is never deleted: a dead outbox row, an ops alert and a parked queue message
-- stay until an operator acted on it (replayed, redriven, or acknowledged with a reason: audited)
-- and the retention period has passed since. acknowledged_at is when; retention looks rows up by it.
-- Rows that died before this migration have none: they wait for an operator like any other.
ALTER TABLE outbox ADD COLUMN acknowledged_at timestamptz;
ALTER TABLE ops_alert ADD COLUMN acknowledged_at timestamptz;
ALTER TABLE load_queue_dead ADD COLUMN acknowledged_at timestamptz;

CREATE INDEX outbox_dead_acknowledged_idx ON outbox (acknowledged_at)
    WHERE status = 'dead' AND acknowledged_at IS NOT NULL;
CREATE INDEX ops_alert_acknowledged_idx ON ops_alert (acknowledged_at) WHERE acknowledged_at IS NOT NULL;
CREATE INDEX load_queue_dead_acknowledged_idx ON load_queue_dead (acknowledged_at) WHERE acknowledged_at IS NOT NULL;
