-- On Citus, after every migration (after the schema is distributed, in a transaction of its own, as
-- Citus creates no function in a transaction that distributed a table): the functions that let a
-- statement of the hot path run on the node that holds its rows, in one trip from the coordinator.
--
-- * A run's append: loadflow_append_here is distributed by its first argument, co-located with the
--   log. Called with a load as that argument, Citus sends it to the node that holds the load's
--   shards, where the log entries and the outbox rows go in one local transaction, the version
--   checked as on one PostgreSQL. A batch's append is one call per node, made with the node's
--   probe (below): each node writes the batch's loads whose shards it holds, in one local
--   transaction of its own.
-- * The claims, by node: loadflow_claim_outbox, loadflow_claim_timers and loadflow_next_fire_at
--   are distributed by their first argument, a probe: a load id chosen so that its shard lies on
--   one node. Citus sends such a call to that node, where the function works on the node's own
--   shards of the table, one at a time, locking with FOR UPDATE SKIP LOCKED inside each shard as
--   plain PostgreSQL does; the dispatcher and the pump call it once per node, in turn
--   (CitusNodes). Each shard's placement is locked against a move (shared, as Citus's own writes
--   lock it), so a rebalance waits for a claim and a claim never writes to a shard copy that was
--   moved away. Called where the probe's shard is not (not delegated), they refuse (SQLSTATE
--   LF001). They run as the schema's owner (SECURITY DEFINER, the search_path fixed), since only
--   a table's owner may lock its shards' placements; only loadflow_app may call them.
-- On plain PostgreSQL it does nothing.
DO $functions$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        RETURN;
    END IF;

    -- one probe per node holding shards of a table, searched until every node has one (on the coordinator)
    EXECUTE $fn$
    CREATE OR REPLACE FUNCTION loadflow_node_probes(rel regclass) RETURNS SETOF text
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $body$
    DECLARE
        nodes int;
        found int[] := '{}';
        node int;
        probe text;
        shard bigint;
    BEGIN
        SELECT count(DISTINCT p.groupid) INTO nodes
        FROM pg_catalog.pg_dist_shard s JOIN pg_catalog.pg_dist_placement p USING (shardid) WHERE s.logicalrelid = rel;
        FOR n IN 0 .. 1000000 LOOP
            EXIT WHEN cardinality(found) >= nodes;
            probe := 'node-probe-' || n;
            shard := get_shard_id_for_distribution_column(rel, probe);
            SELECT p.groupid INTO node FROM pg_catalog.pg_dist_placement p WHERE p.shardid = shard;
            IF NOT node = ANY (found) THEN
                found := found || node;
                RETURN NEXT probe;
            END IF;
        END LOOP;
    END
    $body$
    $fn$;

    -- the node's shards of a table, each locked against a move; on a node the probe's shard is not on, a refusal
    EXECUTE $fn$
    CREATE OR REPLACE FUNCTION loadflow_local_shards(rel regclass, probe text) RETURNS SETOF text
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $body$
    DECLARE
        here int := (SELECT groupid FROM pg_catalog.pg_dist_local_group);
        probe_shard bigint := get_shard_id_for_distribution_column(rel, probe);
        shards bigint[];
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_placement WHERE shardid = probe_shard AND groupid = here) THEN
            RAISE EXCEPTION 'the shard of % is not on this node: call the claim by itself, so Citus sends it there', probe
                USING ERRCODE = 'LF001';
        END IF;
        SELECT array_agg(p.shardid ORDER BY p.shardid) INTO shards
        FROM pg_catalog.pg_dist_shard s JOIN pg_catalog.pg_dist_placement p USING (shardid)
        WHERE s.logicalrelid = rel AND p.groupid = here;
        PERFORM lock_shard_metadata(5, shards); -- ShareLock, in shard order: what Citus's own writes take
        RETURN QUERY SELECT shard_name(rel, p.shardid) FROM pg_catalog.pg_dist_shard s
                     JOIN pg_catalog.pg_dist_placement p USING (shardid)
                     WHERE s.logicalrelid = rel AND p.groupid = here ORDER BY random();
    END
    $body$
    $fn$;

    -- an outbox claim on one node: of each channel (or of any, channels NULL) its number of the oldest due rows,
    -- one statement per shard
    EXECUTE $fn$
    CREATE OR REPLACE FUNCTION loadflow_claim_outbox(probe text, claim_at timestamptz, claim_until timestamptz,
                                                     channels text[], wanted int[]) RETURNS SETOF outbox
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $body$
    DECLARE
        shard text;
        claimed outbox%ROWTYPE;
        i int;
    BEGIN
        FOR shard IN SELECT loadflow_local_shards('outbox', probe) LOOP
            FOR claimed IN EXECUTE format(CASE WHEN channels IS NULL THEN $any$
                WITH due AS MATERIALIZED (
                    SELECT load_id, outbox_id FROM %1$s
                    WHERE status = 'pending' AND available_at <= $1
                    ORDER BY available_at LIMIT $4[1]
                    FOR UPDATE SKIP LOCKED)
                UPDATE %1$s o SET claim_token = gen_random_uuid(), claimed_until = $2, available_at = $2,
                                  attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, $1)
                FROM due WHERE o.load_id = due.load_id AND o.outbox_id = due.outbox_id
                RETURNING o.*$any$ ELSE $each$
                WITH due AS MATERIALIZED (
                    SELECT d.load_id, d.outbox_id
                    FROM unnest($3::text[], $4::int[]) AS c(channel, wanted)
                    CROSS JOIN LATERAL (
                        SELECT load_id, outbox_id FROM %1$s
                        WHERE status = 'pending' AND channel = c.channel AND available_at <= $1
                        ORDER BY available_at LIMIT greatest(c.wanted, 0)
                        FOR UPDATE SKIP LOCKED) d)
                UPDATE %1$s o SET claim_token = gen_random_uuid(), claimed_until = $2, available_at = $2,
                                  attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, $1)
                FROM due WHERE o.load_id = due.load_id AND o.outbox_id = due.outbox_id
                RETURNING o.*$each$ END, shard)
                USING claim_at, claim_until, channels, wanted
            LOOP
                RETURN NEXT claimed;
                i := CASE WHEN channels IS NULL THEN 1 ELSE array_position(channels, claimed.channel) END;
                wanted[i] := wanted[i] - 1;
            END LOOP;
            EXIT WHEN (SELECT max(w) FROM unnest(wanted) w) <= 0;
        END LOOP;
    END
    $body$
    $fn$;

    -- a pump's claim on one node: up to lim of its earliest due timers no other pump holds
    EXECUTE $fn$
    CREATE OR REPLACE FUNCTION loadflow_claim_timers(probe text, claim_at timestamptz, claim_until timestamptz,
                                                     lim int) RETURNS SETOF timers
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $body$
    DECLARE
        shard text;
        got int;
    BEGIN
        FOR shard IN SELECT loadflow_local_shards('timers', probe) LOOP
            RETURN QUERY EXECUTE format($claim$
                WITH due AS MATERIALIZED (
                    SELECT load_id, timer_id FROM %1$s
                    WHERE status = 'scheduled' AND fire_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)
                    ORDER BY fire_at LIMIT $3
                    FOR UPDATE SKIP LOCKED)
                UPDATE %1$s t SET claimed_until = $2
                FROM due WHERE t.load_id = due.load_id AND t.timer_id = due.timer_id
                RETURNING t.*$claim$, shard)
                USING claim_at, claim_until, lim;
            GET DIAGNOSTICS got = ROW_COUNT;
            lim := lim - got;
            EXIT WHEN lim <= 0;
        END LOOP;
    END
    $body$
    $fn$;

    -- the earliest fire_at of the scheduled timers on one node
    EXECUTE $fn$
    CREATE OR REPLACE FUNCTION loadflow_next_fire_at(probe text) RETURNS timestamptz
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $body$
    DECLARE
        shard text;
        next timestamptz;
        earliest timestamptz;
    BEGIN
        FOR shard IN SELECT loadflow_local_shards('timers', probe) LOOP
            EXECUTE format('SELECT min(fire_at) FROM %s WHERE status = ''scheduled''', shard) INTO next;
            earliest := least(earliest, next);
        END LOOP;
        RETURN earliest;
    END
    $body$
    $fn$;

    -- loadflow_append (one load), superseded by loadflow_append_here called with the load as its probe
    DROP FUNCTION IF EXISTS loadflow_append(text,timestamptz,bigint,int[],text[],text[],text[],timestamptz[],text[],text[],
        text[],text[],text[],text[],text[],text[],timestamptz[],text[],text[],text[]);

    -- of a batch's loads, those whose shards lie on this node, for the call made with the node's probe; none when a probe
    -- called before (before) leads here too (a shard moved: that call takes this node's loads); where the probe's shard
    -- is not, a refusal
    EXECUTE $fn$
    CREATE OR REPLACE FUNCTION loadflow_batch_here(probe text, before text[], loads text[]) RETURNS SETOF text
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $body$
    DECLARE
        here int := (SELECT groupid FROM pg_catalog.pg_dist_local_group);
        -- the log's shards on this node; get_shard_id_for_distribution_column is volatile, so it is called once per
        -- id here rather than in a join, where it ran once for every row of pg_dist_placement
        here_shards bigint[] := ARRAY(SELECT p.shardid FROM pg_catalog.pg_dist_shard s
                                      JOIN pg_catalog.pg_dist_placement p USING (shardid)
                                      WHERE s.logicalrelid = 'event_log'::regclass AND p.groupid = here);
    BEGIN
        IF NOT get_shard_id_for_distribution_column('event_log', probe) = ANY (here_shards) THEN
            RAISE EXCEPTION 'the shard of % is not on this node: call the batch by itself, so Citus sends it there', probe
                USING ERRCODE = 'LF001';
        END IF;
        IF EXISTS (SELECT 1 FROM unnest(before) AS b(probe)
                   WHERE get_shard_id_for_distribution_column('event_log', b.probe) = ANY (here_shards)) THEN
            RETURN;
        END IF;
        RETURN QUERY SELECT DISTINCT l.load_id FROM unnest(loads) AS l(load_id)
                     WHERE get_shard_id_for_distribution_column('event_log', l.load_id) = ANY (here_shards);
    END
    $body$
    $fn$;

    -- an append on one node: of the loads given, those whose shards lie here, each only if its log is at the version it
    -- expects (its entries, then its outbox rows), all in this node's one local transaction; a row per load of this
    -- node, whether it was written. Nothing when a probe called before (before) leads here too (a shard moved): that
    -- call writes this node's loads. One load is appended with itself as the probe
    EXECUTE $fn$
    CREATE OR REPLACE FUNCTION loadflow_append_here(probe text, before text[], recorded timestamptz,
            e_loads text[], versions bigint[], ords int[], entry_ids text[], kinds text[], types text[], occurred timestamptz[],
            correlations text[], causations text[], bodies text[],
            o_loads text[], o_ids text[], o_types text[], o_channels text[], o_payloads text[], o_available timestamptz[],
            o_correlations text[], o_causations text[], o_traces text[]) RETURNS TABLE (owned text, appended boolean)
    LANGUAGE plpgsql SET search_path FROM CURRENT AS $body$
    DECLARE
        load text;
        expected bigint;
        logged int;
    BEGIN
        FOR load, expected IN
            SELECT DISTINCT e.load_id, e.version FROM unnest(e_loads, versions) AS e(load_id, version)
            JOIN loadflow_batch_here(probe, before, e_loads) AS h(load_id) ON h.load_id = e.load_id
        LOOP
            owned := load;
            appended := false;
            IF expected = coalesce((SELECT max(l.seq) FROM event_log l WHERE l.load_id = load), 0) THEN
                INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, correlation_id,
                                       causation_id, body)
                SELECT load, expected + e.ord, e.entry_id, e.kind, e.type, e.occurred_at, recorded, e.correlation_id,
                       e.causation_id, e.body::jsonb
                FROM unnest(e_loads, ords, entry_ids, kinds, types, occurred, correlations, causations, bodies)
                     AS e(load_id, ord, entry_id, kind, type, occurred_at, correlation_id, causation_id, body)
                WHERE e.load_id = load;
                GET DIAGNOSTICS logged = ROW_COUNT;
                IF logged > 0 THEN
                    INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, attempts, available_at,
                                        correlation_id, causation_id, traceparent, created_at)
                    SELECT o.outbox_id, load, o.action_type, o.channel, o.payload::jsonb, 'pending', 0, o.available_at,
                           o.correlation_id, o.causation_id, o.traceparent, recorded
                    FROM unnest(o_loads, o_ids, o_types, o_channels, o_payloads, o_available, o_correlations, o_causations,
                                o_traces)
                         AS o(load_id, outbox_id, action_type, channel, payload, available_at, correlation_id, causation_id,
                              traceparent)
                    WHERE o.load_id = load;
                    appended := true;
                END IF;
            END IF;
            RETURN NEXT;
        END LOOP;
    END
    $body$
    $fn$;

    -- Citus keeps every function it propagates in pg_dist_object; the claims are distributed once
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_object
                   WHERE objid = 'loadflow_claim_outbox(text,timestamptz,timestamptz,text[],int[])'::regprocedure
                     AND distribution_argument_index IS NOT NULL) THEN
        PERFORM create_distributed_function('loadflow_local_shards(regclass,text)'); -- on every node, as the claims call it there
        PERFORM create_distributed_function('loadflow_claim_outbox(text,timestamptz,timestamptz,text[],int[])', '$1', colocate_with := 'event_log');
        PERFORM create_distributed_function('loadflow_claim_timers(text,timestamptz,timestamptz,int)', '$1', colocate_with := 'event_log');
        PERFORM create_distributed_function('loadflow_next_fire_at(text)', '$1', colocate_with := 'event_log');
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_object
                   WHERE objid = 'loadflow_append_here(text,text[],timestamptz,text[],bigint[],int[],text[],text[],text[],timestamptz[],text[],text[],text[],text[],text[],text[],text[],text[],timestamptz[],text[],text[],text[])'::regprocedure
                     AND distribution_argument_index IS NOT NULL) THEN
        PERFORM create_distributed_function('loadflow_append_here(text,text[],timestamptz,text[],bigint[],int[],text[],text[],text[],timestamptz[],text[],text[],text[],text[],text[],text[],text[],text[],timestamptz[],text[],text[],text[])', '$1', colocate_with := 'event_log');
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_object
                   WHERE objid = 'loadflow_batch_here(text,text[],text[])'::regprocedure) THEN
        PERFORM create_distributed_function('loadflow_batch_here(text,text[],text[])'); -- on every node, as the batches call it there
    END IF;
    -- the services' role may call the functions (the claims run as the schema's owner, who alone may lock a shard's
    -- placement), nobody else: the console's reader neither claims nor appends
    REVOKE EXECUTE ON FUNCTION loadflow_local_shards(regclass,text), loadflow_next_fire_at(text), loadflow_batch_here(text,text[],text[]),
        loadflow_claim_outbox(text,timestamptz,timestamptz,text[],int[]), loadflow_claim_timers(text,timestamptz,timestamptz,int),
        loadflow_append_here(text,text[],timestamptz,text[],bigint[],int[],text[],text[],text[],timestamptz[],text[],text[],text[],text[],text[],text[],text[],text[],timestamptz[],text[],text[],text[])
        FROM PUBLIC;
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_app') THEN
        GRANT EXECUTE ON FUNCTION loadflow_next_fire_at(text), loadflow_batch_here(text,text[],text[]),
            loadflow_claim_outbox(text,timestamptz,timestamptz,text[],int[]), loadflow_claim_timers(text,timestamptz,timestamptz,int),
            loadflow_append_here(text,text[],timestamptz,text[],bigint[],int[],text[],text[],text[],timestamptz[],text[],text[],text[],text[],text[],text[],text[],text[],timestamptz[],text[],text[],text[])
            TO loadflow_app;
    END IF;
END
$functions$;
