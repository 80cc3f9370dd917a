-- loadflow_app: the role the services connect as (the migrations run as the schema's owner). It
-- may read and change the rows of every loadflow table, those of later migrations too (default
-- privileges of the migrating role), and nothing else: no DDL, and on admin_audit only INSERT and
-- SELECT, so no service can rewrite or erase who changed what. It is made without LOGIN: the
-- deployment grants it LOGIN and a password, or makes login roles members of it (the operations
-- guide, "PostgreSQL roles"). Like loadflow_reader, creating it needs CREATEROLE: a migrating role
-- without it leaves a notice, and the DBA runs these statements by hand.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_app') THEN
        BEGIN
            CREATE ROLE loadflow_app NOLOGIN;
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN
                NULL; -- created meanwhile by the migration of another database on this server
            WHEN insufficient_privilege THEN
                RAISE NOTICE 'loadflow_app was not created (the migrating role lacks CREATEROLE): create it and grant it by hand';
                RETURN;
        END;
    END IF;
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO loadflow_app', current_schema());
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO loadflow_app', current_schema());
    EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO loadflow_app', current_schema());
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO loadflow_app',
                   current_schema());
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE, SELECT ON SEQUENCES TO loadflow_app', current_schema());
    -- the audit trail is written and read, never changed
    REVOKE UPDATE, DELETE, TRUNCATE ON admin_audit FROM loadflow_app;
END $$;
