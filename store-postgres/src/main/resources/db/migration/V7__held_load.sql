-- Poison holds its load: a load whose head message cannot be processed is held there (the
-- queue keeps the message; held_load says why and what an operator asked for), and an
-- operator's skip is logged in the message's place as a 'skipped' entry.
ALTER TABLE event_log DROP CONSTRAINT event_log_kind_check;
ALTER TABLE event_log ADD CONSTRAINT event_log_kind_check
    CHECK (kind IN ('event', 'decision', 'skipped')) NOT VALID;
ALTER TABLE event_log VALIDATE CONSTRAINT event_log_kind_check;

CREATE TABLE held_load (
    load_id        text        NOT NULL PRIMARY KEY,
    message_id     text        NOT NULL,
    message_type   text        NOT NULL,
    reason         text        NOT NULL,
    held_since     timestamptz NOT NULL,
    state          text        NOT NULL CHECK (state IN ('held', 'retry', 'skipped')),
    receipt_handle text
);
