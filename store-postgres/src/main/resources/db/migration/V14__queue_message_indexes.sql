-- Fewer index entries per queue message. Every message is inserted, delivered (its receipt
-- handle and receive count set) and deleted at its ack. The index on the receipt handle made
-- each delivery a non-HOT update, a new entry in every index of the table; an ack and a park
-- find their message as the head of its load instead (the message in flight is always its
-- load's head: enqueues only add later ids, and only an ack or a park of the handle in flight
-- removes one). The primary key becomes (load_id, id), which is the head index itself.
-- With no indexed column changed, a delivery writes its new row version on the same page; the
-- fillfactor leaves room there for it.
CREATE UNIQUE INDEX load_queue_load_head_key ON load_queue (load_id, id);
ALTER TABLE load_queue DROP CONSTRAINT load_queue_pkey;
ALTER TABLE load_queue ADD CONSTRAINT load_queue_pkey PRIMARY KEY USING INDEX load_queue_load_head_key;
DROP INDEX load_queue_head_idx;
DROP INDEX load_queue_receipt_idx;
ALTER TABLE load_queue SET (fillfactor = 80);
