-- loadflow schema. Every table carries load_id and every transaction touches one load, so
-- the schema shards by load_id when one PostgreSQL is outgrown. Every business timestamp is
-- written from the application's Clock: no column defaults to now().

-- The per-load log: the source of truth. One writer per load (the load worker); optimistic
-- concurrency on seq: an append at an already-taken seq fails on event_log_pkey.
CREATE TABLE event_log (
    load_id        text        NOT NULL,
    seq            bigint      NOT NULL CHECK (seq > 0),
    entry_id       text        NOT NULL,
    kind           text        NOT NULL CHECK (kind IN ('event', 'decision')),
    type           text        NOT NULL,
    occurred_at    timestamptz NOT NULL,
    recorded_at    timestamptz NOT NULL,
    correlation_id text,
    causation_id   text,
    body           jsonb       NOT NULL,
    CONSTRAINT event_log_pkey PRIMARY KEY (load_id, seq),
    CONSTRAINT event_log_entry_key UNIQUE (load_id, entry_id)
);

-- Actions to carry out, written in the decision's transaction. outbox_id is the action key
-- and the Idempotency-Key the channels dedupe on. A claimed row is unavailable until its
-- lease ends, so "due" is one indexed predicate: status = 'pending' AND available_at <= now.
CREATE TABLE outbox (
    outbox_id        text        NOT NULL,
    load_id          text        NOT NULL,
    action_type      text        NOT NULL,
    channel          text        NOT NULL,
    payload          jsonb       NOT NULL,
    status           text        NOT NULL CHECK (status IN ('pending', 'dispatched', 'dead')),
    attempts         integer     NOT NULL DEFAULT 0,
    available_at     timestamptz NOT NULL,
    first_attempt_at timestamptz,
    claim_token      uuid,
    claimed_until    timestamptz,
    last_failure     text,
    receipt          text,
    dispatched_at    timestamptz,
    dead_at          timestamptz,
    correlation_id   text,
    causation_id     text,
    created_at       timestamptz NOT NULL,
    CONSTRAINT outbox_pkey PRIMARY KEY (outbox_id)
);
CREATE INDEX outbox_due_idx ON outbox (available_at) WHERE status = 'pending';
CREATE INDEX outbox_dead_idx ON outbox (dead_at, outbox_id) WHERE status = 'dead';
CREATE INDEX outbox_dispatched_idx ON outbox (dispatched_at) WHERE status = 'dispatched';
CREATE INDEX outbox_load_idx ON outbox (load_id);

-- Every failed attempt of an outbox row, for operators ("show one with its history").
CREATE TABLE outbox_failure (
    outbox_id text        NOT NULL REFERENCES outbox (outbox_id) ON DELETE CASCADE,
    attempt   integer     NOT NULL,
    failed_at timestamptz NOT NULL,
    failure   text        NOT NULL,
    parked    boolean     NOT NULL,
    CONSTRAINT outbox_failure_pkey PRIMARY KEY (outbox_id, attempt, failed_at)
);

-- Durable timers. A cancel that arrives before its schedule leaves a 'cancelled' tombstone,
-- and schedule is idempotent on timer_id, so a cancelled timer never fires. A claim lease
-- (claimed_until) keeps several pumps from firing the same timer at once.
CREATE TABLE timers (
    timer_id      text        NOT NULL,
    load_id       text        NOT NULL,
    ask_id        text,
    attempt       integer,
    fire_at       timestamptz NOT NULL,
    status        text        NOT NULL CHECK (status IN ('scheduled', 'fired', 'cancelled')),
    claimed_until timestamptz,
    fired_at      timestamptz,
    cancelled_at  timestamptz,
    created_at    timestamptz NOT NULL,
    correlation_id text,
    CONSTRAINT timers_pkey PRIMARY KEY (timer_id)
);
CREATE INDEX timers_due_idx ON timers (fire_at) WHERE status = 'scheduled';
CREATE INDEX timers_done_idx ON timers (coalesce(fired_at, cancelled_at)) WHERE status <> 'scheduled';
CREATE INDEX timers_load_idx ON timers (load_id);

-- The load queue: FIFO per load (message group = load_id), at-least-once, parallel across
-- loads. load_queue_group holds one row per load with queued messages and carries the
-- group's visibility: a group whose head message is in flight is invisible until it is acked
-- or its visibility timeout ends, so a load's next message is never handed out early.
CREATE TABLE load_queue_group (
    load_id          text        NOT NULL,
    visible_at       timestamptz NOT NULL,
    in_flight_handle uuid,
    CONSTRAINT load_queue_group_pkey PRIMARY KEY (load_id)
);
CREATE INDEX load_queue_group_visible_idx ON load_queue_group (visible_at);
CREATE INDEX load_queue_group_in_flight_idx ON load_queue_group (in_flight_handle)
    WHERE in_flight_handle IS NOT NULL;

CREATE TABLE load_queue (
    id             bigint GENERATED ALWAYS AS IDENTITY,
    load_id        text        NOT NULL,
    message_id     text        NOT NULL,
    body           jsonb       NOT NULL,
    enqueued_at    timestamptz NOT NULL,
    receive_count  integer     NOT NULL DEFAULT 0,
    receipt_handle uuid,
    CONSTRAINT load_queue_pkey PRIMARY KEY (id),
    CONSTRAINT load_queue_message_key UNIQUE (load_id, message_id)
);
CREATE INDEX load_queue_head_idx ON load_queue (load_id, id);
CREATE INDEX load_queue_receipt_idx ON load_queue (receipt_handle) WHERE receipt_handle IS NOT NULL;
CREATE INDEX load_queue_enqueued_idx ON load_queue (enqueued_at);

-- Fan-out subscribers' record of what they handled (ADR 0006): a duplicate delivery is a
-- no-op at the database level.
CREATE TABLE processed_event (
    handler_name text        NOT NULL,
    event_id     text        NOT NULL,
    processed_at timestamptz NOT NULL,
    CONSTRAINT processed_event_pkey PRIMARY KEY (handler_name, event_id)
);

-- Alerts for on-call: a Hero-channel or internal action that died (never a Hero task).
CREATE TABLE ops_alert (
    id           bigint GENERATED ALWAYS AS IDENTITY,
    load_id      text        NOT NULL,
    outbox_id    text,
    action_type  text,
    kind         text        NOT NULL,
    message      text        NOT NULL,
    raised_at    timestamptz NOT NULL,
    CONSTRAINT ops_alert_pkey PRIMARY KEY (id),
    CONSTRAINT ops_alert_outbox_kind_key UNIQUE (outbox_id, kind)
);
CREATE INDEX ops_alert_raised_idx ON ops_alert (raised_at);

-- Wake-ups: the dispatcher, the pump and the workers LISTEN on these channels and fall back
-- to polling. NOTIFY is transactional: it is delivered only when the insert commits.
CREATE FUNCTION loadflow_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(TG_ARGV[0], '');
    RETURN NULL;
END
$$;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION loadflow_notify('loadflow_outbox');
CREATE TRIGGER timers_notify AFTER INSERT ON timers
    FOR EACH STATEMENT EXECUTE FUNCTION loadflow_notify('loadflow_timers');
CREATE TRIGGER load_queue_notify AFTER INSERT ON load_queue
    FOR EACH STATEMENT EXECUTE FUNCTION loadflow_notify('loadflow_queue');
