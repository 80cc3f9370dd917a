-- One trace from ingest to the last SMS: the W3C traceparent an outbox row's send and a
-- timer's firing continue (the event's own travels in its envelope).
ALTER TABLE outbox ADD COLUMN traceparent text;
ALTER TABLE timers ADD COLUMN traceparent text;
