-- Each role holds what it uses, no more.
-- * loadflow_app (the services) appends to the log and never changes or removes an entry: no
--   UPDATE or DELETE on event_log or its partitions, and only SELECT on event_log_archive. It acknowledges an ops
--   alert (UPDATE of acknowledged_at only) and removes none. It reads Flyway's history and the
--   schema's floor and changes neither.
-- * loadflow_retention (new, NOLOGIN): what retention does and nothing else: moves idle loads'
--   entries to the archive (a marker appended, the entries deleted and archived) and removes what
--   an operator handled or what aged out (dead outbox rows and their failures, acknowledged ops
--   alerts, acknowledged parked messages, fan-out records, provider and inbound messages). The
--   services run retention through a login of their own that is a member of it
--   (loadflow.retention.username and .password).
-- Like V9 and V20, creating a role needs CREATEROLE: without it the migration leaves a notice and
-- the DBA runs these statements by hand (the operations guide, "PostgreSQL roles").
DO $$
DECLARE
    s text := current_schema();
    t text;
    log_tables text[];
BEGIN
    -- the log, its archive, and their partitions (V10), which a statement could name directly
    SELECT array_agg(c.relname::text) INTO log_tables
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = s AND (c.relname IN ('event_log', 'event_log_archive')
          OR c.oid IN (SELECT i.inhrelid FROM pg_inherits i
                       WHERE i.inhparent IN (to_regclass(format('%I.event_log', s)), to_regclass(format('%I.event_log_archive', s)))));

    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_app') THEN
        FOREACH t IN ARRAY log_tables LOOP
            EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I.%I FROM loadflow_app', s, t);
        END LOOP;
        EXECUTE format('REVOKE INSERT ON %I.event_log_archive FROM loadflow_app', s); -- only retention archives
        EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I.ops_alert FROM loadflow_app', s);
        EXECUTE format('GRANT UPDATE (acknowledged_at) ON %I.ops_alert TO loadflow_app', s);
        EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON %I.schema_floor FROM loadflow_app', s);
        IF to_regclass(format('%I.flyway_schema_history', s)) IS NOT NULL THEN
            EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON %I.flyway_schema_history FROM loadflow_app', s);
        END IF;
    END IF;

    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_retention') THEN
        BEGIN
            CREATE ROLE loadflow_retention NOLOGIN;
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN
                NULL; -- created meanwhile by the migration of another database on this server
            WHEN insufficient_privilege THEN
                RAISE NOTICE 'loadflow_retention was not created (the migrating role lacks CREATEROLE): create it and grant it by hand';
                RETURN;
        END;
    END IF;
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO loadflow_retention', s);
    FOREACH t IN ARRAY log_tables LOOP
        EXECUTE format('GRANT SELECT, INSERT, DELETE ON %I.%I TO loadflow_retention', s, t);
    END LOOP;
    -- what decides whether a load is idle
    EXECUTE format('GRANT SELECT ON %I.timers, %I.held_load, %I.load_queue TO loadflow_retention', s, s, s);
    -- dead rows are chosen FOR UPDATE SKIP LOCKED, which needs UPDATE
    EXECUTE format('GRANT SELECT, UPDATE, DELETE ON %I.outbox TO loadflow_retention', s);
    EXECUTE format('GRANT SELECT, DELETE ON %I.outbox_failure, %I.ops_alert, %I.load_queue_dead, %I.processed_event, '
                   '%I.provider_message, %I.inbound_message TO loadflow_retention', s, s, s, s, s, s);
END $$;
