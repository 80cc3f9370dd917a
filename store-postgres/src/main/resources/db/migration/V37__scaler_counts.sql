-- What KEDA scales the worker and the dispatcher by, and all it may read: two counts, each a
-- view the schema's owner owns (so it reads the tables with the owner's rights, and the role
-- reading it needs none on them). loadflow_scaler (NOLOGIN) may read the two views and nothing
-- else: KEDA's login is a member of it. Like V9, creating a role needs CREATEROLE: without it the
-- migration leaves a notice and the DBA runs the statements by hand.
-- Loads with a visible message (each needs one run; a load runs one at a time).
CREATE VIEW scaler_loads_ready AS
SELECT count(*) AS n FROM load_queue_group
WHERE visible_at <= now() AND (in_flight_handle IS NULL OR coalesce(in_flight_until, visible_at) <= now());
-- Outbox rows due to be sent, leaving out those of a channel whose circuit is open.
CREATE VIEW scaler_rows_due AS
SELECT count(*) AS n FROM outbox o
WHERE o.status = 'pending' AND o.available_at <= now()
  AND NOT EXISTS (SELECT FROM channel_circuit c WHERE c.channel = o.channel AND c.open_until > now());

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_scaler') THEN
        BEGIN
            CREATE ROLE loadflow_scaler NOLOGIN;
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN
                NULL; -- created meanwhile by the migration of another database on this server
            WHEN insufficient_privilege THEN
                RAISE NOTICE 'loadflow_scaler was not created (the migrating role lacks CREATEROLE): create it and grant it by hand';
                RETURN;
        END;
    END IF;
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO loadflow_scaler', current_schema());
    EXECUTE format('GRANT SELECT ON %I.scaler_loads_ready, %I.scaler_rows_due TO loadflow_scaler',
                   current_schema(), current_schema());
END $$;
