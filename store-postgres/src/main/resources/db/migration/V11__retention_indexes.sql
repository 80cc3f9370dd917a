-- What the retention job looks up by age and had no index for.
CREATE INDEX processed_event_processed_idx ON processed_event (processed_at);
