-- Each client's SOP as numbered versions: the rules (JSON, as SopRulesCodec writes them), who made
-- the version, when and why. A version is never changed: a change is the client's next version,
-- and the newest decides; a client with none follows the default rules (loadflow.sop.default.*).
-- The services add versions and change none. On Citus a table of the coordinator. An expand
-- migration: the floor stays.
CREATE TABLE sop_version (
    client_id text        NOT NULL,
    version   integer     NOT NULL CHECK (version >= 1),
    rules     jsonb       NOT NULL,
    made_by   text        NOT NULL,
    made_at   timestamptz NOT NULL,
    reason    text        NOT NULL,
    CONSTRAINT sop_version_pkey PRIMARY KEY (client_id, version)
);

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_app') THEN
        EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I.sop_version FROM loadflow_app', current_schema());
    END IF;
END $$;
