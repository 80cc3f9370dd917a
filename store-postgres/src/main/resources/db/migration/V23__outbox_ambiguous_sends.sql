-- A send to a provider that keeps no idempotency key (Twilio's Messages API, a Slack incoming
-- webhook) whose answer was lost may or may not have reached the provider: sent again, it could
-- reach the driver twice. Such a row is either reconciled before its next attempt (the channel
-- can be asked what it has: unsure_since says when the first such attempt was) or parked as
-- 'ambiguous' for an operator, who marks it delivered or has it sent again (both audited).
ALTER TABLE outbox DROP CONSTRAINT outbox_status_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_status_check
    CHECK (status IN ('pending', 'dispatched', 'dead', 'ambiguous')) NOT VALID;
ALTER TABLE outbox VALIDATE CONSTRAINT outbox_status_check;
ALTER TABLE outbox ADD COLUMN unsure_since timestamptz;
ALTER TABLE outbox ADD COLUMN ambiguous_at timestamptz;
CREATE INDEX outbox_ambiguous_idx ON outbox (ambiguous_at, outbox_id) WHERE status = 'ambiguous';
