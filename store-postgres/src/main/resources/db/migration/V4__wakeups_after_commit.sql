-- Wake-ups leave the writing transactions. A NOTIFY inside a transaction makes PostgreSQL
-- serialise its commit with every other notifying commit, holding that lock through the WAL
-- flush: the inserts into outbox, timers and load_queue all queued behind one another's fsync.
-- The stores now send the NOTIFY after their commit, in a transaction of its own
-- (dev.loadflow.store.pg.PgWakeups). Rows inserted by hand are found at the next poll.
DROP TRIGGER outbox_notify ON outbox;
DROP TRIGGER timers_notify ON timers;
DROP TRIGGER load_queue_notify ON load_queue;
DROP FUNCTION loadflow_notify();
