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
-- * A batch's read: loadflow_read_here, distributed and called as the append is, reads the node's loads of the batch.
-- * An ingest's question: loadflow_contains_here, distributed and called as the append is, tells which of the node's
--   events of a batch its loads' logs hold.
-- * A dispatcher's marks: loadflow_dispatched_here, distributed as the append is and called once per node with the
--   node's probe, sets the node's rows of the marks dispatched in one local transaction.
-- * A dispatcher's timers: loadflow_timers_here, distributed and called as the marks are, schedules or cancels the
--   node's timers of a group in one local transaction.
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
DECLARE
    by_load text;
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

    -- a load's shard of a table, locked against a move (shared, as Citus's own writes lock it), by its name; NULL when
    -- the shard is not on this node (it left before the lock): what the functions that read or write one load's rows take
    EXECUTE $fn$
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
    -- call writes this node's loads. One load is appended with itself as the probe. Each load's rows go straight into
    -- its shards of the log and the outbox, locked against a move as Citus's own writes lock them (so, as the claims,
    -- it runs as the schema's owner): planning the same INSERT ... SELECT on the distributed tables cost the node more
    -- than writing the rows. A load whose shard left this node before the lock is not taken here: the caller appends
    -- it by itself, where Citus now sends it
    EXECUTE $fn$
    CREATE OR REPLACE FUNCTION loadflow_append_here(probe text, before text[], recorded timestamptz,
            e_loads text[], versions bigint[], ords int[], entry_ids text[], kinds text[], types text[], occurred timestamptz[],
            correlations text[], causations text[], bodies text[],
            o_loads text[], o_ids text[], o_types text[], o_channels text[], o_payloads text[], o_available timestamptz[],
            o_correlations text[], o_causations text[], o_traces text[]) RETURNS TABLE (owned text, appended boolean)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $body$
    DECLARE
        load text;
        expected bigint;
        log_shard text;
        outbox_shard text;
        latest bigint;
        logged int;
    BEGIN
        FOR load, expected IN
            SELECT DISTINCT e.load_id, e.version FROM unnest(e_loads, versions) AS e(load_id, version)
            JOIN loadflow_batch_here(probe, before, e_loads) AS h(load_id) ON h.load_id = e.load_id
        LOOP
            log_shard := loadflow_load_shard_here('event_log', load);
            CONTINUE WHEN log_shard IS NULL;
            outbox_shard := loadflow_load_shard_here('outbox', load); -- co-located: here while the log's is locked
            owned := load;
            appended := false;
            EXECUTE format('SELECT max(seq) FROM %s WHERE load_id = $1', log_shard)
                INTO latest USING load;
            IF expected = coalesce(latest, 0) THEN
                EXECUTE format($insert$
                    INSERT INTO %s (load_id, seq, entry_id, kind, type, occurred_at, recorded_at, correlation_id,
                                    causation_id, body)
                    SELECT $1, $2 + e.ord, e.entry_id, e.kind, e.type, e.occurred_at, $3, e.correlation_id,
                           e.causation_id, e.body::jsonb
                    FROM unnest($4::text[], $5::int[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[],
                                $11::text[], $12::text[])
                         AS e(load_id, ord, entry_id, kind, type, occurred_at, correlation_id, causation_id, body)
                    WHERE e.load_id = $1$insert$, log_shard)
                    USING load, expected, recorded, e_loads, ords, entry_ids, kinds, types, occurred, correlations,
                          causations, bodies;
                GET DIAGNOSTICS logged = ROW_COUNT;
                IF logged > 0 THEN
                    EXECUTE format($insert$
                        INSERT INTO %s (outbox_id, load_id, action_type, channel, payload, status, attempts, available_at,
                                        correlation_id, causation_id, traceparent, created_at)
                        SELECT o.outbox_id, $1, o.action_type, o.channel, o.payload::jsonb, 'pending', 0, o.available_at,
                               o.correlation_id, o.causation_id, o.traceparent, $2
                        FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[],
                                    $9::text[], $10::text[], $11::text[])
                             AS o(load_id, outbox_id, action_type, channel, payload, available_at, correlation_id,
                                  causation_id, traceparent)
                        WHERE o.load_id = $1$insert$, outbox_shard)
                        USING load, recorded, o_loads, o_ids, o_types, o_channels, o_payloads, o_available, o_correlations,
                              o_causations, o_traces;
                    appended := true;
                END IF;
            END IF;
            RETURN NEXT;
        END LOOP;
    END
    $body$
    $fn$;

    -- a batch's read on one node: of the loads given, those whose shards lie here, each one's entries after the seq given
    -- for it, straight from its shard of the log (locked against a move, as the append does, so no old copy of a moved
    -- shard is read); first a row with only the load (owned) for each load read here, whether it has entries or not.
    -- Nothing when a probe called before (before) leads here too; a load whose shard left this node before the lock is
    -- not read here: the caller reads it by itself
    EXECUTE $fn$
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
            RETURN QUERY EXECUTE format($read$
                SELECT $1, l.seq, l.kind, l.recorded_at, l.body::text FROM %s l
                WHERE l.load_id = $1 AND l.seq > $2 ORDER BY l.seq$read$, shard)
                USING load, after;
        END LOOP;
    END
    $body$
    $fn$;

    -- an ingest's question on one node: of the (load, entry) pairs given, those whose loads' shards lie here, each with
    -- whether the load's log or its archive holds the entry, read straight from their shards (locked against a move, as
    -- the read does). Nothing when a probe called before (before) leads here too; a pair whose shard left this node
    -- before the lock is not answered here: the caller asks for it by itself
    EXECUTE $fn$
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
            EXECUTE format($ask$
                SELECT EXISTS (SELECT 1 FROM %s WHERE load_id = $1 AND entry_id = $2)
                    OR EXISTS (SELECT 1 FROM %s WHERE load_id = $1 AND entry_id = $2)$ask$, log_shard, archive_shard)
                INTO held USING pair.load_id, pair.entry_id;
            owned := pair.load_id;
            entry_id := pair.entry_id;
            RETURN NEXT;
        END LOOP;
    END
    $body$
    $fn$;

    -- a dispatcher's marks on one node: of the rows given, those whose loads' shards lie here, each set dispatched with
    -- its receipt if its claim still holds, straight in its shard of the outbox (locked against a move, as the append
    -- does); a row per such outbox row, whether it was marked. Nothing when a probe called before (before) leads here
    -- too; a row whose shard left this node before the lock is not taken here: the caller marks it by itself
    EXECUTE $fn$
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
            EXECUTE format($mark$
                UPDATE %s SET status = 'dispatched', receipt = $3, dispatched_at = $4, claim_token = NULL, claimed_until = NULL
                WHERE outbox_id = $1 AND claim_token = $2 AND status = 'pending' AND load_id = $5$mark$, shard)
                USING sent.outbox_id, sent.claim_token, sent.receipt, at, sent.load_id;
            GET DIAGNOSTICS changed = ROW_COUNT;
            owned := sent.outbox_id;
            marked := changed = 1;
            RETURN NEXT;
        END LOOP;
    END
    $body$
    $fn$;

    -- a dispatcher's timers on one node: of the timers given, those whose loads' shards lie here, each scheduled
    -- (cancel false: created unless it exists) or cancelled (cancel true: a scheduled one cancelled, an unknown one left
    -- as a tombstone at the time given) straight in its shard of timers (locked against a move, as the append does), in
    -- timer id order, as on one PostgreSQL; a row per such timer, whether it was created or cancelled. Nothing when a
    -- probe called before (before) leads here too; a timer whose shard left this node before the lock is not taken
    -- here: the caller sends it by itself
    EXECUTE $fn$
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
                EXECUTE format($cancel$
                    INSERT INTO %s AS t (timer_id, load_id, ask_id, attempt, fire_at, status, cancelled_at, created_at)
                    VALUES ($1, $2, $3, $4, $5, 'cancelled', $5, $5)
                    ON CONFLICT (load_id, timer_id) DO UPDATE
                        SET status = 'cancelled', cancelled_at = excluded.cancelled_at, claimed_until = NULL
                        WHERE t.status = 'scheduled'$cancel$, shard)
                    USING timer.timer_id, timer.load_id, timer.ask_id, timer.attempt, at;
            ELSE
                EXECUTE format($schedule$
                    INSERT INTO %s (timer_id, load_id, ask_id, attempt, fire_at, status, created_at, correlation_id,
                                    traceparent)
                    VALUES ($1, $2, $3, $4, $5, 'scheduled', $6, $7, $8)
                    ON CONFLICT (load_id, timer_id) DO NOTHING$schedule$, shard)
                    USING timer.timer_id, timer.load_id, timer.ask_id, timer.attempt, timer.fire_at, at,
                          timer.correlation_id, timer.traceparent;
            END IF;
            GET DIAGNOSTICS rows_changed = ROW_COUNT;
            owned := timer.timer_id;
            changed := rows_changed = 1;
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
$functions$;
