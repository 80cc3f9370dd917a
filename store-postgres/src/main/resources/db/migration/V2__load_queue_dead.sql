-- Poison messages of the load queue: a message that keeps failing (or cannot be read) is
-- parked here by the worker, never dropped, and its load's next message can go ahead.
CREATE TABLE load_queue_dead (
    load_id       text        NOT NULL,
    message_id    text        NOT NULL,
    body          jsonb       NOT NULL,
    enqueued_at   timestamptz NOT NULL,
    receive_count integer     NOT NULL,
    parked_at     timestamptz NOT NULL,
    reason        text        NOT NULL,
    CONSTRAINT load_queue_dead_pkey PRIMARY KEY (load_id, message_id)
);
CREATE INDEX load_queue_dead_parked_idx ON load_queue_dead (parked_at);
