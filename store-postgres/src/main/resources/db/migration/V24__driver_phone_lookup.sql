-- Inbound SMS from Twilio name the driver's number, not the load: the load is the one whose most
-- recent LoadAssigned gave it that number (PgDriverLoads). This index finds a number's
-- assignments, newest first, without reading any other entry of the log.
CREATE INDEX event_log_driver_phone_idx ON event_log ((body -> 'payload' ->> 'driverPhone'), recorded_at)
    WHERE type = 'LoadAssigned';
