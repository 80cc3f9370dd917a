-- The queue tables are rewritten all day: every outbox row is inserted, claimed and marked,
-- every timer scheduled and fired or cancelled, every queue message inserted, received and
-- deleted, and none of those updates is HOT (each changes an indexed column). With the default
-- trigger (20% of the table dead), an outbox of a million rows waited for 200,000 dead rows,
-- about eight minutes at 100 events/s, and the claim's index walked them meanwhile (the soak in
-- docs/benchmarks.md). Vacuum them after a fixed number of dead rows instead, whatever their size.
ALTER TABLE outbox SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000,
                        autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 50000);
ALTER TABLE timers SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);
ALTER TABLE load_queue SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);
ALTER TABLE load_queue_group SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);
