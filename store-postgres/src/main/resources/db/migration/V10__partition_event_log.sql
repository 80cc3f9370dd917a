-- The log, partitioned by load (16 hash partitions), and its archive.
--
-- Every unique constraint of a partitioned table must contain the partition key, and both of
-- the log's keys, (load_id, seq) for the version check and (load_id, entry_id) for the
-- duplicate check, must stay unique in the database: so the key is load_id. Each partition is
-- created with its own constraint names (event_log_pNN_pkey, event_log_pNN_entry_key), which
-- is what a violation names; the stores read those as event_log_pkey and event_log_entry_key.
--
-- The conversion runs while the services run (this script is not one transaction: its
-- .conf says so). A trigger copies every new entry into the partitioned table, a loop copies
-- the existing entries in batches of 5,000 (each its own transaction, so no lock is held
-- long), and the swap takes the old table's lock only to compare the row counts and rename.
-- Every step checks whether it already ran, so after a failure `flyway repair` and a new
-- migrate go on where it stopped.

DO $$
DECLARE
    p text;
BEGIN
    IF EXISTS (SELECT FROM pg_partitioned_table WHERE partrelid = to_regclass('event_log')) THEN
        RETURN; -- converted already
    END IF;
    -- the same columns in the same order (the copies below are SELECT *)
    CREATE TABLE IF NOT EXISTS event_log_partitioned (
        LIKE event_log,
        CONSTRAINT event_log_partitioned_seq_check CHECK (seq > 0),
        CONSTRAINT event_log_partitioned_pkey PRIMARY KEY (load_id, seq),
        CONSTRAINT event_log_partitioned_entry_key UNIQUE (load_id, entry_id),
        CONSTRAINT event_log_partitioned_kind_check CHECK (kind IN ('event', 'decision', 'skipped', 'archived'))
    ) PARTITION BY HASH (load_id);
    FOR i IN 0..15 LOOP
        p := format('event_log_p%s', lpad(i::text, 2, '0'));
        IF to_regclass(p) IS NULL THEN
            EXECUTE format('CREATE TABLE %I (LIKE event_log_partitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS,'
                           ' CONSTRAINT %I PRIMARY KEY (load_id, seq), CONSTRAINT %I UNIQUE (load_id, entry_id))',
                           p, p || '_pkey', p || '_entry_key');
            EXECUTE format('ALTER TABLE event_log_partitioned ATTACH PARTITION %I FOR VALUES WITH (MODULUS 16, REMAINDER %s)', p, i);
        END IF;
    END LOOP;
    -- the retention job walks the oldest entries first (an archived load's marker is not one)
    CREATE INDEX IF NOT EXISTS event_log_partitioned_recorded_idx ON event_log_partitioned (recorded_at, load_id)
        WHERE kind <> 'archived';

    CREATE OR REPLACE FUNCTION loadflow_event_log_copy() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
        INSERT INTO event_log_partitioned VALUES (NEW.*) ON CONFLICT DO NOTHING;
        RETURN NULL;
    END
    $f$;
    DROP TRIGGER IF EXISTS event_log_copy ON event_log;
    CREATE TRIGGER event_log_copy AFTER INSERT ON event_log
        FOR EACH ROW EXECUTE FUNCTION loadflow_event_log_copy();
END $$;

-- The existing entries, in key order, 5,000 to a transaction.
DO $$
DECLARE
    last_load text := '';
    last_seq  bigint := 0;
    copied    integer;
BEGIN
    IF EXISTS (SELECT FROM pg_partitioned_table WHERE partrelid = to_regclass('event_log')) THEN
        RETURN;
    END IF;
    LOOP
        WITH batch AS (
            SELECT * FROM event_log
            WHERE (load_id, seq) > (last_load, last_seq)
            ORDER BY load_id, seq
            LIMIT 5000),
        copy AS (
            INSERT INTO event_log_partitioned SELECT * FROM batch ON CONFLICT DO NOTHING)
        SELECT count(*), (array_agg(load_id ORDER BY load_id DESC, seq DESC))[1],
               (array_agg(seq ORDER BY load_id DESC, seq DESC))[1]
        INTO copied, last_load, last_seq
        FROM batch;
        EXIT WHEN copied = 0;
        COMMIT;
    END LOOP;
END $$;

-- The swap: writers wait only while the counts are compared and the tables renamed.
DO $$
DECLARE
    old_rows bigint;
    new_rows bigint;
BEGIN
    IF EXISTS (SELECT FROM pg_partitioned_table WHERE partrelid = to_regclass('event_log')) THEN
        RETURN;
    END IF;
    LOCK TABLE event_log IN SHARE ROW EXCLUSIVE MODE;
    SELECT count(*) INTO old_rows FROM event_log;
    SELECT count(*) INTO new_rows FROM event_log_partitioned;
    IF old_rows <> new_rows THEN
        RAISE EXCEPTION 'event_log has % rows, its partitioned copy %: not swapped', old_rows, new_rows;
    END IF;
    DROP TABLE event_log;
    DROP FUNCTION loadflow_event_log_copy();
    ALTER TABLE event_log_partitioned RENAME TO event_log;
    ALTER TABLE event_log RENAME CONSTRAINT event_log_partitioned_pkey TO event_log_pkey;
    ALTER TABLE event_log RENAME CONSTRAINT event_log_partitioned_entry_key TO event_log_entry_key;
    ALTER TABLE event_log RENAME CONSTRAINT event_log_partitioned_kind_check TO event_log_kind_check;
    ALTER TABLE event_log RENAME CONSTRAINT event_log_partitioned_seq_check TO event_log_seq_check;
    ALTER INDEX event_log_partitioned_recorded_idx RENAME TO event_log_recorded_idx;
END $$;

-- Where a load's entries go when it leaves the hot log (loadflow.retention.log after its last
-- entry): the same rows, with when they moved. The hot log keeps one 'archived' entry per such
-- load, at the seq after its last, so an append that read the load before it moved finds its
-- version gone and re-reads; a read of a load with an 'archived' entry reads this table too.
CREATE TABLE IF NOT EXISTS event_log_archive (
    LIKE event_log,
    archived_at timestamptz NOT NULL,
    CONSTRAINT event_log_archive_pkey PRIMARY KEY (load_id, seq)
);
CREATE INDEX IF NOT EXISTS event_log_archive_archived_idx ON event_log_archive (archived_at);
