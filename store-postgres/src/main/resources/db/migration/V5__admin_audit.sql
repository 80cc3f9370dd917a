-- Who changed what through an admin API. Each row is written in the transaction of the change
-- it records, so a change that failed (or changed nothing it was asked to) leaves no row.
CREATE TABLE admin_audit (
    id        bigint      GENERATED ALWAYS AS IDENTITY,
    at        timestamptz NOT NULL,
    principal text        NOT NULL,
    service   text        NOT NULL,
    action    text        NOT NULL,
    target    text        NOT NULL,
    params    jsonb       NOT NULL,
    result    jsonb       NOT NULL,
    CONSTRAINT admin_audit_pkey PRIMARY KEY (id)
);
CREATE INDEX admin_audit_at_idx ON admin_audit (at DESC, id DESC);
CREATE INDEX admin_audit_principal_idx ON admin_audit (principal, at DESC, id DESC);
