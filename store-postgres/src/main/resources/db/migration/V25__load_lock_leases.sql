-- The optional per-load lock (with the LLM policy) as a lease in a table, not a session advisory
-- lock: a run that waits seconds or minutes for a model holds one row of its own load, not a
-- database connection, so as many runs may wait on models at once as the model allows, and a
-- holder that dies leaves a lease that simply ends. Rows go when their lease is released.
CREATE TABLE load_lock (
    load_id text        NOT NULL,
    holder  uuid        NOT NULL,
    until   timestamptz NOT NULL,
    CONSTRAINT load_lock_pkey PRIMARY KEY (load_id)
);
