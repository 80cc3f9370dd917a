-- The messages a provider that keeps no idempotency key (Twilio's Messages API) created for
-- outbox rows: one row per provider message, naming the one outbox row it belongs to. A message
-- is written here when the provider's answer to a send names it, and when the provider's status
-- callback (which carries the outbox id the send named) reports it. The primary key makes one
-- message the receipt of at most one row; a reconcile after a lost answer passes over the
-- messages other rows hold. Local to the coordinator on Citus (read by provider and message id,
-- and by outbox id, never joined with the per-load tables). An expand migration: the floor stays.
CREATE TABLE provider_message (
    provider    text        NOT NULL,
    message_id  text        NOT NULL,
    outbox_id   text        NOT NULL,
    load_id     text        NOT NULL,
    status      text,
    recorded_at timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    CONSTRAINT provider_message_pkey PRIMARY KEY (provider, message_id)
);
CREATE INDEX provider_message_outbox_idx ON provider_message (outbox_id);
CREATE INDEX provider_message_recorded_idx ON provider_message (recorded_at);

-- The SMS rows to one number, for a reconcile: which other rows could own a message the provider
-- has to that number with that text.
CREATE INDEX outbox_sms_to_idx ON outbox ((payload ->> 'to'), created_at) WHERE channel = 'sms';
