-- An outbox row that dies again after a replay raises its alert again: an alert is unique per
-- row, kind and death (the row's parked failures so far), no longer per row and kind.
ALTER TABLE ops_alert ADD COLUMN death integer NOT NULL DEFAULT 1;
ALTER TABLE ops_alert DROP CONSTRAINT ops_alert_outbox_kind_key;
ALTER TABLE ops_alert ADD CONSTRAINT ops_alert_outbox_kind_death_key UNIQUE (outbox_id, kind, death);
