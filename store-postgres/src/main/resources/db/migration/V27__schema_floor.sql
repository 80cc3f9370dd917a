-- The oldest build that may still run its loops on this schema. Services built with the
-- schema gate (this migration onward) read it: a build whose newest migration is below
-- lowest_build stops its loops and reports not ready, instead of running on a schema it does
-- not know. An expand migration (a table, a nullable column, an index) leaves it; a contract
-- migration (a drop, a rename, a new NOT NULL) that breaks the builds before it raises it to
-- its own version, after the release that stopped using what it removes (see the upgrade notes
-- in docs/operations.md).
CREATE TABLE schema_floor (
    lowest_build integer NOT NULL,
    single       boolean NOT NULL DEFAULT true,
    CONSTRAINT schema_floor_pkey PRIMARY KEY (single),
    CONSTRAINT schema_floor_single CHECK (single)
);
INSERT INTO schema_floor (lowest_build) VALUES (1);
