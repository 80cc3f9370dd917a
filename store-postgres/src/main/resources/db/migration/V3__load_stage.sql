-- The stage of each load as the dispatcher applies update_stage actions: a read model for
-- other systems. The log stays the source of truth (the projection knows the stage too).
CREATE TABLE load_stage (
    load_id    text        NOT NULL,
    stage      text        NOT NULL,
    outbox_id  text        NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT load_stage_pkey PRIMARY KEY (load_id)
);
