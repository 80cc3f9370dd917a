-- The receives of queued messages that did not run, for a load queue that counts every receive
-- and cannot take a count back (SQS FIFO): a message handed out behind its load's head and given
-- back unrun, because the head failed, was held or was parked. A message's deliveries are its
-- receive count less these, so waiting behind a held head never makes it poison. A row goes when
-- its message leaves the queue; one left by a message that outlived the queue's retention (SQS
-- keeps a message 14 days at most) is swept when rows are next added.
CREATE TABLE queue_unrun_receive (
    load_id    text        NOT NULL,
    message_id text        NOT NULL,
    receives   integer     NOT NULL CHECK (receives > 0),
    last_at    timestamptz NOT NULL,
    PRIMARY KEY (load_id, message_id)
);
