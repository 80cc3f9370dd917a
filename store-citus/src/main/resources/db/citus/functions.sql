-- On Citus, after every migration (after the schema is distributed, in a transaction of its own, as
-- Citus creates no function in a transaction that distributed a table): the functions that let a
-- batch or a claim run on the node that holds its rows, in one trip from the coordinator. CitusSchema
-- runs this only where the citus extension is installed.
--
-- Every statement these functions run on a shard is written once, in the Java store whose table it
-- is: each double-braced name below is that store's template, with its table left open (%1$s), placed here as it
-- is when this runs. The functions add only which shards, which loads, and what each call answers.
--
-- * Called with a node's probe (a load id whose shard lies on that node) and a whole batch, a
--   function takes the batch's loads whose shards lie on its node (loadflow_batch_here) and runs the
--   store's statement on each load's shard, all in the node's one local transaction; with a load
--   itself as the probe, that load alone. Each names the loads it took (owned).
-- * The claims (loadflow_claim_outbox, loadflow_claim_timers, loadflow_next_fire_at) run the store's
--   claim on each of the node's own shards in turn, with FOR UPDATE SKIP LOCKED inside each, exactly
--   as one PostgreSQL does.
-- * Each shard is locked against a move (shared, as Citus's own writes lock it), so a rebalance waits
--   for a call and a call never writes to a shard copy that was moved away; called where the probe's
--   shard is not (not delegated), a function refuses (SQLSTATE LF001). They run as the schema's owner
--   (SECURITY DEFINER, the search_path fixed), since only a table's owner may lock its shards'
--   placements; only loadflow_app may call them.

-- one probe per node holding shards of a table, searched until every node has one (on the coordinator)
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
$body$;

-- the node's shards of a table, each locked against a move; on a node the probe's shard is not on, a refusal
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
$body$;

-- a load's shard of a table, locked against a move (shared, as Citus's own writes lock it), by its name; NULL when
-- the shard is not on this node (it left before the lock): what the functions that read or write one load's rows take
CREATE OR REPLACE FUNCTION loadflow_load_shard_here(rel regclass, load text) RETURNS text
LANGUAGE plpgsql SET search_path FROM CURRENT AS $body$
DECLARE
    shard bigint := get_shard_id_for_distribution_column(rel, load);
BEGIN
    PERFORM lock_shard_metadata(5, ARRAY[shard]);
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_placement p JOIN pg_catalog.pg_dist_local_group g USING (groupid)
                   WHERE p.shardid = shard) THEN
        RETURN NULL;
    END IF;
    RETURN shard_name(rel, shard);
END
$body$;

-- of a batch's loads, those whose shards lie on this node, for the call made with the node's probe; none when a probe
-- called before (before) leads here too (a shard moved: that call takes this node's loads); where the probe's shard
-- is not, a refusal
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
$body$;

-- an outbox claim on one node: of each channel (or of any, channels NULL) its number of the oldest due rows
CREATE OR REPLACE FUNCTION loadflow_claim_outbox(probe text, claim_at timestamptz, claim_until timestamptz,
                                                 channels text[], wanted int[]) RETURNS SETOF outbox
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $body$
DECLARE
    shard text;
    claimed outbox%ROWTYPE;
    i int;
BEGIN
    FOR shard IN SELECT loadflow_local_shards('outbox', probe) LOOP
        IF channels IS NULL THEN
            FOR claimed IN EXECUTE format($stmt${{outbox.claim}}$stmt$, shard, 'o.*')
                USING claim_at, claim_until, wanted[1]
            LOOP
                RETURN NEXT claimed;
                wanted[1] := wanted[1] - 1;
            END LOOP;
        ELSE
            FOR claimed IN EXECUTE format($stmt${{outbox.claim_per_channel}}$stmt$, shard, 'o.*')
                USING claim_at, claim_until, channels, wanted
            LOOP
                RETURN NEXT claimed;
                i := array_position(channels, claimed.channel);
                wanted[i] := wanted[i] - 1;
            END LOOP;
        END IF;
        EXIT WHEN (SELECT max(w) FROM unnest(wanted) w) <= 0;
    END LOOP;
END
$body$;

-- a pump's claim on one node: up to lim of its earliest due timers no other pump holds
CREATE OR REPLACE FUNCTION loadflow_claim_timers(probe text, claim_at timestamptz, claim_until timestamptz,
                                                 lim int) RETURNS SETOF timers
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $body$
DECLARE
    shard text;
    got int;
BEGIN
    FOR shard IN SELECT loadflow_local_shards('timers', probe) LOOP
        RETURN QUERY EXECUTE format($stmt${{timers.claim}}$stmt$, shard, 't.*') USING claim_at, claim_until, lim;
        GET DIAGNOSTICS got = ROW_COUNT;
        lim := lim - got;
        EXIT WHEN lim <= 0;
    END LOOP;
END
$body$;

-- the earliest fire_at of the scheduled timers on one node
CREATE OR REPLACE FUNCTION loadflow_next_fire_at(probe text) RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $body$
DECLARE
    shard text;
    next timestamptz;
    earliest timestamptz;
BEGIN
    FOR shard IN SELECT loadflow_local_shards('timers', probe) LOOP
        EXECUTE format($stmt${{timers.next_fire_at}}$stmt$, shard) INTO next;
        earliest := least(earliest, next);
    END LOOP;
    RETURN earliest;
END
$body$;

-- loadflow_append (one load), superseded by loadflow_append_here called with the load as its probe
DROP FUNCTION IF EXISTS loadflow_append(text,timestamptz,bigint,int[],text[],text[],text[],timestamptz[],text[],text[],
    text[],text[],text[],text[],text[],text[],timestamptz[],text[],text[],text[]);

-- an append on one node: of the batch's loads, those whose shards lie here, each by the event store's append on the
-- load's shards of the log and the outbox, only if its log is at the version it expects; a row per load of this node,
-- whether it was written. A load whose shard left this node before the lock is not taken here: the caller appends it
-- by itself, where Citus now sends it
CREATE OR REPLACE FUNCTION loadflow_append_here(probe text, before text[], recorded timestamptz,
        e_loads text[], versions bigint[], ords int[], entry_ids text[], kinds text[], types text[], occurred timestamptz[],
        correlations text[], causations text[], bodies text[],
        o_loads text[], o_ids text[], o_types text[], o_channels text[], o_payloads text[], o_available timestamptz[],
        o_correlations text[], o_causations text[], o_traces text[]) RETURNS TABLE (owned text, appended boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $body$
DECLARE
    load text;
    log_shard text;
    outbox_shard text;
    written text;
BEGIN
    FOR load IN SELECT DISTINCT h.load_id FROM loadflow_batch_here(probe, before, e_loads) AS h(load_id) ORDER BY 1 LOOP
        log_shard := loadflow_load_shard_here('event_log', load);
        CONTINUE WHEN log_shard IS NULL;
        outbox_shard := loadflow_load_shard_here('outbox', load); -- co-located: here while the log's is locked
        EXECUTE format($stmt${{eventlog.append}}$stmt$, log_shard, outbox_shard, ' AND e.load_id = $21') INTO written
            USING recorded, e_loads, versions, ords, entry_ids, kinds, types, occurred, correlations, causations, bodies,
                  o_loads, o_ids, o_types, o_channels, o_payloads, o_available, o_correlations, o_causations, o_traces, load;
        owned := load;
        appended := written IS NOT NULL;
        RETURN NEXT;
    END LOOP;
END
$body$;

-- a batch's read on one node: of the loads given, those whose shards lie here, each one's entries after the seq given
-- for it, by the event store's read of one load on its shard; first a row with only the load (owned) for each load
-- read here, whether it has entries or not
CREATE OR REPLACE FUNCTION loadflow_read_here(probe text, before text[], loads text[], afters bigint[])
    RETURNS TABLE (owned text, seq bigint, kind text, recorded_at timestamptz, body text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $body$
DECLARE
    load text;
    after bigint;
    shard text;
BEGIN
    FOR load, after IN
        SELECT r.load_id, r.after FROM unnest(loads, afters) AS r(load_id, after)
        WHERE r.load_id IN (SELECT h.load_id FROM loadflow_batch_here(probe, before, loads) AS h(load_id))
        ORDER BY r.load_id
    LOOP
        shard := loadflow_load_shard_here('event_log', load);
        CONTINUE WHEN shard IS NULL;
        owned := load;
        seq := NULL;
        kind := NULL;
        recorded_at := NULL;
        body := NULL;
        RETURN NEXT;
        RETURN QUERY EXECUTE format('SELECT $1::text, r.seq, r.kind, r.recorded_at, r.body FROM (%s) r ORDER BY r.seq',
            format($stmt${{eventlog.read_after_one}}$stmt$, shard)) USING load, after;
    END LOOP;
END
$body$;

-- an ingest's question on one node: of the (load, entry) pairs given, those whose loads' shards lie here, each with
-- whether the load's log or its archive holds the entry, by the event store's question on its shards
CREATE OR REPLACE FUNCTION loadflow_contains_here(probe text, before text[], loads text[], entry_ids text[])
    RETURNS TABLE (owned text, entry_id text, held boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $body$
DECLARE
    pair record;
    log_shard text;
    archive_shard text;
BEGIN
    FOR pair IN
        SELECT c.load_id, c.entry_id FROM unnest(loads, entry_ids) AS c(load_id, entry_id)
        WHERE c.load_id IN (SELECT h.load_id FROM loadflow_batch_here(probe, before, loads) AS h(load_id))
        ORDER BY c.load_id
    LOOP
        log_shard := loadflow_load_shard_here('event_log', pair.load_id);
        CONTINUE WHEN log_shard IS NULL;
        archive_shard := loadflow_load_shard_here('event_log_archive', pair.load_id); -- co-located: here as the log's
        EXECUTE format('SELECT EXISTS (%s)', format($stmt${{eventlog.contains}}$stmt$, log_shard, archive_shard))
            INTO held USING pair.load_id, pair.entry_id;
        owned := pair.load_id;
        entry_id := pair.entry_id;
        RETURN NEXT;
    END LOOP;
END
$body$;

-- a dispatcher's marks on one node: of the rows given, those whose loads' shards lie here, each marked dispatched by
-- the outbox's mark on its shard if its claim still holds; a row per such outbox row, whether it was marked
CREATE OR REPLACE FUNCTION loadflow_dispatched_here(probe text, before text[], ids text[], tokens uuid[],
                                                    receipts text[], loads text[], at timestamptz)
    RETURNS TABLE (owned text, marked boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $body$
DECLARE
    sent record;
    shard text;
    changed int;
BEGIN
    FOR sent IN
        SELECT m.outbox_id, m.claim_token, m.receipt, m.load_id
        FROM unnest(ids, tokens, receipts, loads) AS m(outbox_id, claim_token, receipt, load_id)
        WHERE m.load_id IN (SELECT h.load_id FROM loadflow_batch_here(probe, before, loads) AS h(load_id))
        ORDER BY m.outbox_id
    LOOP
        shard := loadflow_load_shard_here('outbox', sent.load_id);
        CONTINUE WHEN shard IS NULL;
        EXECUTE format($stmt${{outbox.mark_dispatched}}$stmt$, shard)
            USING sent.outbox_id, sent.claim_token, sent.receipt, at, sent.load_id;
        GET DIAGNOSTICS changed = ROW_COUNT;
        owned := sent.outbox_id;
        marked := changed = 1;
        RETURN NEXT;
    END LOOP;
END
$body$;

-- a dispatcher's timers on one node: of the timers given, those whose loads' shards lie here, each scheduled (cancel
-- false) or cancelled (cancel true) by the timer store's statement on its shard, in timer id order, as on one
-- PostgreSQL; a row per such timer, whether it was created or cancelled
CREATE OR REPLACE FUNCTION loadflow_timers_here(probe text, before text[], cancel boolean, ids text[], loads text[],
                                                asks text[], attempts int[], fire_ats timestamptz[],
                                                correlations text[], traces text[], at timestamptz)
    RETURNS TABLE (owned text, changed boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $body$
DECLARE
    timer record;
    shard text;
    rows_changed int;
BEGIN
    FOR timer IN
        SELECT t.timer_id, t.load_id, t.ask_id, t.attempt, t.fire_at, t.correlation_id, t.traceparent
        FROM unnest(ids, loads, asks, attempts, fire_ats, correlations, traces)
             AS t(timer_id, load_id, ask_id, attempt, fire_at, correlation_id, traceparent)
        WHERE t.load_id IN (SELECT h.load_id FROM loadflow_batch_here(probe, before, loads) AS h(load_id))
        ORDER BY t.timer_id
    LOOP
        shard := loadflow_load_shard_here('timers', timer.load_id);
        CONTINUE WHEN shard IS NULL;
        IF cancel THEN
            EXECUTE format($stmt${{timers.cancel}}$stmt$, shard, 'load_id, timer_id')
                USING timer.timer_id, timer.load_id, timer.ask_id, timer.attempt, at;
        ELSE
            EXECUTE format($stmt${{timers.schedule}}$stmt$, shard, 'load_id, timer_id')
                USING timer.timer_id, timer.load_id, timer.ask_id, timer.attempt, timer.fire_at, at,
                      timer.correlation_id, timer.traceparent;
        END IF;
        GET DIAGNOSTICS rows_changed = ROW_COUNT;
        owned := timer.timer_id;
        changed := rows_changed = 1;
        RETURN NEXT;
    END LOOP;
END
$body$;

-- distributed once each, and callable by the services' role only
DO $distribute$
DECLARE
    by_load text;
BEGIN
    -- Citus keeps every function it propagates in pg_dist_object; the claims are distributed once
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_object
                   WHERE objid = 'loadflow_claim_outbox(text,timestamptz,timestamptz,text[],int[])'::regprocedure
                     AND distribution_argument_index IS NOT NULL) THEN
        PERFORM create_distributed_function('loadflow_local_shards(regclass,text)'); -- on every node, as the claims call it there
        PERFORM create_distributed_function('loadflow_claim_outbox(text,timestamptz,timestamptz,text[],int[])', '$1', colocate_with := 'event_log');
        PERFORM create_distributed_function('loadflow_claim_timers(text,timestamptz,timestamptz,int)', '$1', colocate_with := 'event_log');
        PERFORM create_distributed_function('loadflow_next_fire_at(text)', '$1', colocate_with := 'event_log');
    END IF;
    -- the functions called with a load or a node's probe, sent to the node that holds its shards
    FOREACH by_load IN ARRAY ARRAY[
            'loadflow_append_here(text,text[],timestamptz,text[],bigint[],int[],text[],text[],text[],timestamptz[],text[],text[],text[],text[],text[],text[],text[],text[],timestamptz[],text[],text[],text[])',
            'loadflow_read_here(text,text[],text[],bigint[])',
            'loadflow_contains_here(text,text[],text[],text[])',
            'loadflow_dispatched_here(text,text[],text[],uuid[],text[],text[],timestamptz)',
            'loadflow_timers_here(text,text[],boolean,text[],text[],text[],int[],timestamptz[],text[],text[],timestamptz)'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_object
                       WHERE objid = by_load::regprocedure AND distribution_argument_index IS NOT NULL) THEN
            PERFORM create_distributed_function(by_load::regprocedure, '$1', colocate_with := 'event_log');
        END IF;
    END LOOP;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_object
                   WHERE objid = 'loadflow_load_shard_here(regclass,text)'::regprocedure) THEN
        PERFORM create_distributed_function('loadflow_load_shard_here(regclass,text)'); -- on every node, as the functions above call it there
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_object
                   WHERE objid = 'loadflow_batch_here(text,text[],text[])'::regprocedure) THEN
        PERFORM create_distributed_function('loadflow_batch_here(text,text[],text[])'); -- on every node, as the batches call it there
    END IF;
    -- the services' role may call the functions (the claims run as the schema's owner, who alone may lock a shard's
    -- placement), nobody else: the console's reader neither claims nor appends
    REVOKE EXECUTE ON FUNCTION loadflow_local_shards(regclass,text), loadflow_load_shard_here(regclass,text), loadflow_next_fire_at(text), loadflow_batch_here(text,text[],text[]),
        loadflow_claim_outbox(text,timestamptz,timestamptz,text[],int[]), loadflow_claim_timers(text,timestamptz,timestamptz,int),
        loadflow_append_here(text,text[],timestamptz,text[],bigint[],int[],text[],text[],text[],timestamptz[],text[],text[],text[],text[],text[],text[],text[],text[],timestamptz[],text[],text[],text[]),
        loadflow_dispatched_here(text,text[],text[],uuid[],text[],text[],timestamptz), loadflow_read_here(text,text[],text[],bigint[]), loadflow_contains_here(text,text[],text[],text[]),
        loadflow_timers_here(text,text[],boolean,text[],text[],text[],int[],timestamptz[],text[],text[],timestamptz)
        FROM PUBLIC;
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_app') THEN
        GRANT EXECUTE ON FUNCTION loadflow_next_fire_at(text), loadflow_batch_here(text,text[],text[]),
            loadflow_claim_outbox(text,timestamptz,timestamptz,text[],int[]), loadflow_claim_timers(text,timestamptz,timestamptz,int),
            loadflow_append_here(text,text[],timestamptz,text[],bigint[],int[],text[],text[],text[],timestamptz[],text[],text[],text[],text[],text[],text[],text[],text[],timestamptz[],text[],text[],text[]),
            loadflow_dispatched_here(text,text[],text[],uuid[],text[],text[],timestamptz), loadflow_read_here(text,text[],text[],bigint[]), loadflow_contains_here(text,text[],text[],text[]),
        loadflow_timers_here(text,text[],boolean,text[],text[],text[],int[],timestamptz[],text[],text[],timestamptz)
            TO loadflow_app;
    END IF;
END
$distribute$;
