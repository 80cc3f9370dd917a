-- The console shows the clients' SOP versions: a view of sop_version in <schema>_console, as V38
-- made for the other tables the console reads, which loadflow_reader may read. An expand
-- migration: the floor stays.
DO $$
DECLARE
    v text := current_schema() || '_console';
BEGIN
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', v);
    EXECUTE format('CREATE OR REPLACE VIEW %I.sop_version AS SELECT client_id, version, rules, made_by, made_at, reason FROM %I.sop_version',
                   v, current_schema());
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_reader') THEN
        EXECUTE format('GRANT SELECT ON %I.sop_version TO loadflow_reader', v);
    END IF;
END $$;
