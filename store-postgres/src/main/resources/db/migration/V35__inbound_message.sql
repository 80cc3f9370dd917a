-- The messages a provider delivered to loadflow (Twilio's incoming SMS, by MessageSid), each
-- with the one load it was routed to: a message is ingested on that load only, however often the
-- provider sends it again and wherever its sender's loads are by then (a retry, or a captured
-- webhook replayed after the driver moved loads, lands on the first load or nowhere). Local to
-- the coordinator on Citus, as provider_message. Kept as long as provider_message. An expand
-- migration: the floor stays.
CREATE TABLE inbound_message (
    provider    text        NOT NULL,
    message_id  text        NOT NULL,
    load_id     text        NOT NULL,
    received_at timestamptz NOT NULL,
    CONSTRAINT inbound_message_pkey PRIMARY KEY (provider, message_id)
);
CREATE INDEX inbound_message_received_idx ON inbound_message (received_at);
