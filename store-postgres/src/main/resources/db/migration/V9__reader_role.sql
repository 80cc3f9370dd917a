-- loadflow_reader: the role that may read every loadflow table and change none, those of later
-- migrations too (default privileges of the migrating role). The operator console logs in with
-- a role that is a member of it. Creating a role needs CREATEROLE: a migrating role without it
-- leaves a notice and changes nothing, and the DBA runs these statements by hand (the
-- operations guide, "The console's database role", has them).
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_reader') THEN
        BEGIN
            CREATE ROLE loadflow_reader NOLOGIN;
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN
                NULL; -- created meanwhile by the migration of another database on this server
            WHEN insufficient_privilege THEN
                RAISE NOTICE 'loadflow_reader was not created (the migrating role lacks CREATEROLE): create it and grant it reads by hand';
                RETURN;
        END;
    END IF;
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO loadflow_reader', current_schema());
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I TO loadflow_reader', current_schema());
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT ON TABLES TO loadflow_reader', current_schema());
END $$;
