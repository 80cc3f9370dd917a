-- A delivery changes no indexed column of its group. It hid the group by moving visible_at (an
-- indexed column) to the end of the visibility timeout, so every delivery wrote a new entry in
-- each of the group's indexes, left the old ones dead until a vacuum, and made the primary
-- key's uniqueness check visit every earlier version of the row still visible to a snapshot:
-- on the deployment benchmark a batch delivery read 260 buffers a call after a vacuum and
-- 1,400 before the next. Now the group is in flight while in_flight_handle is set and until
-- in_flight_until: the row is rewritten in place (a HOT update), on the same page, which the
-- fillfactor keeps room on. visible_at moves only when the group is given back (ack, release,
-- park), so a receive still takes the groups given back longest ago first; it passes over the
-- groups in flight (at most as many as the consumers take at once) by their in_flight_until.
-- A group delivered by an earlier version (in_flight_until null) stays hidden by its visible_at.
-- An earlier version's receive does not know in_flight_until: while both run (a rolling upgrade
-- from before this version), it can deliver again a message a newer worker has in flight. The
-- second run then fails the log's expected version and is retried, so nothing is logged or sent
-- twice; stop the old workers first to avoid even that (docs/operations.md, "Upgrading").
ALTER TABLE load_queue_group ADD COLUMN in_flight_until timestamptz;
ALTER TABLE load_queue_group SET (fillfactor = 50);
