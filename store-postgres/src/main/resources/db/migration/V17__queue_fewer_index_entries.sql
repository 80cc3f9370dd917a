-- One index entry fewer per delivery. A receipt handle names its load now (the message's uuid,
-- then its load id): an ack, a park, a release or an extension finds its group by the primary
-- key and checks the uuid there, so the partial index on the uuid in flight goes. Until the last
-- worker of an earlier version is replaced, its acks find their group by a scan of this table
-- (one row per load with messages queued): slower for those minutes, still correct.
DROP INDEX load_queue_group_in_flight_idx;
