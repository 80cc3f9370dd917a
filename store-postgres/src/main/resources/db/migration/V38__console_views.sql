-- The ops console reads through views, not the tables: schema <schema>_console holds one view per
-- table its pages read, under the table's name, with the table's columns but those no page shows
-- (a claim's token, a queued message's body, a receive's handle) left NULL. The console's
-- connections look there first (search_path <schema>_console, <schema>), so its queries are the
-- stores' own; loadflow_reader may read the views and, of the tables, only what the schema gate
-- reads (Flyway's history and the schema's floor): a table without a view (provider and inbound
-- messages, parked queue messages, fan-out records, leases) is not the console's to read. The
-- views list their columns when made: a migration that adds a column a page shows makes the
-- table's view again. Owned by the schema's owner, which reads the tables.
DO $$
DECLARE
    s text := current_schema();
    v text := current_schema() || '_console';
    t text;
    cols text;
    hidden CONSTANT text[] := ARRAY['outbox.claim_token', 'load_queue.body', 'load_queue_group.in_flight_handle'];
BEGIN
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', v);
    FOREACH t IN ARRAY ARRAY['event_log', 'event_log_archive', 'outbox', 'outbox_failure', 'timers', 'held_load',
                             'ops_alert', 'admin_audit', 'load_queue', 'load_queue_group', 'load_stage'] LOOP
        SELECT string_agg(CASE WHEN (t || '.' || a.attname) = ANY (hidden)
                               THEN format('NULL::%s AS %I', format_type(a.atttypid, a.atttypmod), a.attname)
                               ELSE format('%I', a.attname) END, ', ' ORDER BY a.attnum)
        INTO cols
        FROM pg_attribute a
        WHERE a.attrelid = format('%I.%I', s, t)::regclass AND a.attnum > 0 AND NOT a.attisdropped;
        EXECUTE format('CREATE OR REPLACE VIEW %I.%I AS SELECT %s FROM %I.%I', v, t, cols, s, t);
    END LOOP;

    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_reader') THEN
        EXECUTE format('REVOKE SELECT ON ALL TABLES IN SCHEMA %I FROM loadflow_reader', s);
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I REVOKE SELECT ON TABLES FROM loadflow_reader', s);
        EXECUTE format('GRANT SELECT ON %I.schema_floor TO loadflow_reader', s);
        IF to_regclass(format('%I.flyway_schema_history', s)) IS NOT NULL THEN
            EXECUTE format('GRANT SELECT ON %I.flyway_schema_history TO loadflow_reader', s);
        END IF;
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO loadflow_reader', v);
        EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I TO loadflow_reader', v);
    END IF;
END $$;
