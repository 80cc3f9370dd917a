package dev.loadflow.store.eventlog;

import dev.loadflow.model.event.LogArchived;
import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.json.LogCodec;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.store.outbox.OutboxInsert;
import dev.loadflow.store.outbox.OutboxMessage;
import dev.loadflow.store.pg.CitusNodes;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.pg.Wakeups;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link EventStore} on PostgreSQL. The version check is the primary key: entries take the
 * seqs after {@code expectedVersion}, so a concurrent append that committed first makes this
 * one fail on {@code event_log_pkey}; an append that names a version the log has not reached
 * inserts nothing. Log rows and outbox rows go in one statement (so one transaction and one
 * round trip), for one load or for a batch of loads.
 *
 * <p>A load that left the hot log ({@link dev.loadflow.store.retention.PgRetention}) keeps one
 * entry there, a {@link LogArchived} at the seq after its last: its version. A read that meets
 * one puts the load's entries from {@code event_log_archive} back in front of it, so a late
 * event for the load is decided against its whole history, as if nothing had moved.
 */
public final class PgEventStore implements EventStore {

    static final String READ = """
            SELECT seq, kind, recorded_at, body::text AS body
            FROM event_log WHERE load_id = $1 ORDER BY seq""";

    /**
     * Each load's entries after its version, one index range per load. The LATERAL subquery
     * (kept apart by its ORDER BY) makes that a nested loop: a plain join let the planner hash
     * the whole log against the handful of loads, a scan that grew with history.
     */
    static final String READ_AFTER = """
            SELECT k.load_id, l.seq, l.kind, l.recorded_at, l.body::text AS body
            FROM unnest($1::text[], $2::bigint[]) AS k(load_id, after)
            CROSS JOIN LATERAL (SELECT e.seq, e.kind, e.recorded_at, e.body FROM event_log e
                                WHERE e.load_id = k.load_id AND e.seq > k.after ORDER BY e.seq) l
            ORDER BY k.load_id, l.seq""";

    /**
     * A load's archived entries between two seqs: after what the caller has, before the first
     * entry the hot log showed it (should the load move again meanwhile, those are read already).
     */
    static final String READ_ARCHIVED = """
            SELECT seq, kind, recorded_at, body::text AS body
            FROM event_log_archive WHERE load_id = $1 AND seq > $2 AND seq < $3 ORDER BY seq""";

    static final String VERSION = "SELECT coalesce(max(seq), 0) FROM event_log WHERE load_id = $1";

    /** The entry in the hot log, or in the archive (where retention moved an idle load's entries: the log reads as if nothing moved). */
    static final String CONTAINS = """
            (SELECT 1 FROM event_log WHERE load_id = $1 AND entry_id = $2)
            UNION ALL
            (SELECT 1 FROM event_log_archive WHERE load_id = $1 AND entry_id = $2)
            LIMIT 1""";

    /**
     * CONTAINS for many: the pairs asked for among the entries of those loads with those ids ($1
     * the loads, $2 the ids; the caller keeps the pairs it asked), in the shape Citus routes to
     * the loads' shards.
     */
    static final String CONTAINS_ANY = """
            SELECT load_id, entry_id FROM event_log WHERE load_id = ANY($1) AND entry_id = ANY($2)
            UNION ALL
            SELECT load_id, entry_id FROM event_log_archive WHERE load_id = ANY($1) AND entry_id = ANY($2)""";

    /**
     * $1 recorded_at; $2..$11 one element per entry (its load, the load's expected version, its
     * place in the load's append, ...); from $12 on the outbox rows, as {@link OutboxInsert}
     * binds them. A load's entries are inserted only when its log is at the expected version
     * (its last seq), and its outbox rows only when its entries were: each load is all or
     * nothing. Returns the loads appended.
     *
     * <p>The version is read as {@code max(seq)}, one step down the primary key whatever the
     * statistics say. An {@code EXISTS} on the expected seq was planned, on a table that looked
     * empty, as a hashed subplan over the whole log, and then as a walk of the load's entries
     * through the other index: both grew with history.
     */
    static final String APPEND = """
            WITH entries AS (
                INSERT INTO event_log (load_id, seq, entry_id, kind, type, occurred_at, recorded_at,
                                       correlation_id, causation_id, body)
                SELECT e.load_id, e.version + e.ord, e.entry_id, e.kind, e.type, e.occurred_at, $1,
                       e.correlation_id, e.causation_id, e.body::jsonb
                FROM unnest($2::text[], $3::bigint[], $4::int[], $5::text[], $6::text[], $7::text[],
                            $8::timestamptz[], $9::text[], $10::text[], $11::text[])
                     AS e(load_id, version, ord, entry_id, kind, type, occurred_at, correlation_id, causation_id, body)
                WHERE e.version = coalesce((SELECT max(l.seq) FROM event_log l WHERE l.load_id = e.load_id), 0)
                RETURNING load_id),
            appended AS (SELECT DISTINCT load_id FROM entries),
            queued AS (
            """ + OutboxInsert.sql("appended", 1, 12) + """
            )
            SELECT load_id FROM appended""";

    /** One load's entries after a seq: {@link #READ_AFTER} for a distributed log, routed to the load's shard. */
    static final String READ_AFTER_ONE = """
            SELECT seq, kind, recorded_at, body::text AS body
            FROM event_log WHERE load_id = $1 AND seq > $2 ORDER BY seq""";

    /** The statements that differ where Citus distributes the log ({@code loadflow.db.citus}). */
    static final class OnCitus {

        /**
         * {@link PgEventStore#APPEND} on a log Citus distributes, for the loads of one node: $1 a
         * probe ({@link CitusNodes}: a load id whose shards lie on the node, or the one load
         * appended by itself), $2 the probes called before it, then the parameters of
         * {@link PgEventStore#APPEND}. {@code loadflow_append_here}, distributed by the probe (the
         * schema's callback), runs on the node that holds the probe's shards and writes the loads
         * whose shards lie there, each only if its log is at the expected version, the entries and
         * the outbox rows in one local transaction, one trip from the coordinator; a row per such
         * load ({@code owned}) says whether it was appended. A node the probe no longer names
         * refuses ({@link CitusNodes#NOT_HERE}); a node an earlier probe leads to as well (a shard
         * moved) leaves its loads to that probe's call. Citus refuses the batch form (a correlated
         * subquery beside a set-returning function).
         */
        static final String APPEND_HERE = "SELECT owned, appended FROM loadflow_append_here($1, $2, $3, $4, $5, $6, $7, $8, "
                + "$9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)";

        /**
         * {@link PgEventStore#READ_AFTER} a node at a time: $1 the node's probe, $2 the probes called
         * before it, $3 the loads, $4 the seq after which each is read. {@code loadflow_read_here}
         * reads the node's loads from their shards: a row with only the load ({@code owned}, seq
         * NULL) for each load read there, then its entries in order.
         */
        static final String READ_HERE = "SELECT owned, seq, kind, recorded_at, body FROM loadflow_read_here($1, $2, $3, $4)";

        /**
         * {@link PgEventStore#CONTAINS_ANY} a node at a time: $1 the node's probe, $2 the probes called
         * before it, $3 loads, $4 entry ids, a pair each; {@code loadflow_contains_here} answers for
         * the node's pairs, a row each ({@code owned} its load) with whether the log holds it.
         */
        static final String CONTAINS_HERE = "SELECT owned, entry_id, held FROM loadflow_contains_here($1, $2, $3, $4)";

        private OnCitus() {
        }
    }

    private final Pool pool;
    private final Clock clock;
    private final Wakeups wakeups;
    private final boolean distributed;
    private final CitusNodes nodes;

    /** @param wakeups told after an append that queued outbox rows commits (the dispatchers' channel) */
    public PgEventStore(Pool pool, Clock clock, Wakeups wakeups) {
        this(pool, clock, wakeups, false);
    }

    /**
     * @param distributed the log is distributed by Citus ({@code loadflow.db.citus}): a batch is
     *                    read load by load and appended node by node, each node's loads in one
     *                    transaction there, so each load stays all or nothing
     */
    public PgEventStore(Pool pool, Clock clock, Wakeups wakeups, boolean distributed) {
        this.pool = pool;
        this.clock = clock;
        this.wakeups = wakeups;
        this.distributed = distributed;
        this.nodes = distributed ? new CitusNodes(pool, "event_log", clock, CitusNodes.REFRESH) : null;
    }

    @Override
    public LoadLog read(String loadId) {
        var rows = Pg.await(pool.preparedQuery(READ).execute(Tuple.of(loadId)));
        List<RecordedEntry> entries = new ArrayList<>(rows.size());
        long version = 0;
        boolean archived = false;
        for (Row row : rows) {
            version = row.getLong("seq");
            archived |= isMarker(row);
            entries.add(entry(row));
        }
        if (archived) {
            entries.addAll(0, archived(loadId, 0, entries.getFirst().seq()));
        }
        return new LoadLog(loadId, version, entries);
    }

    /** {@code loadId}'s archived entries after {@code after} and before {@code before}, in order. */
    private List<RecordedEntry> archived(String loadId, long after, long before) {
        List<RecordedEntry> entries = new ArrayList<>();
        Pg.await(pool.preparedQuery(READ_ARCHIVED).execute(Tuple.of(loadId, after, before)))
                .forEach(row -> entries.add(entry(row)));
        return entries;
    }

    @Override
    public Map<String, List<RecordedEntry>> readAfter(Map<String, Long> versions) {
        Map<String, List<RecordedEntry>> byLoad = new LinkedHashMap<>();
        versions.keySet().forEach(id -> byLoad.put(id, new ArrayList<>()));
        if (versions.isEmpty()) {
            return byLoad;
        }
        Set<String> archived = new HashSet<>();
        if (distributed) {
            readByNode(versions, byLoad, archived);
        } else {
            String[] loads = versions.keySet().toArray(String[]::new);
            Long[] after = new Long[loads.length];
            for (int i = 0; i < loads.length; i++) {
                after[i] = versions.get(loads[i]);
            }
            for (Row row : Pg.await(pool.preparedQuery(READ_AFTER).execute(Tuple.tuple().addArrayOfString(loads)
                    .addArrayOfLong(after)))) {
                if (isMarker(row)) {
                    archived.add(row.getString("load_id"));
                }
                byLoad.get(row.getString("load_id")).add(entry(row));
            }
        }
        for (String loadId : archived) {
            // the load left the hot log after the caller read it: what it has not seen is in the archive
            List<RecordedEntry> hot = byLoad.get(loadId);
            hot.addAll(0, archived(loadId, versions.get(loadId), hot.getFirst().seq()));
        }
        return byLoad;
    }

    /**
     * On Citus: every node reads its loads of the batch at once ({@link OnCitus#READ_HERE}); a load
     * no node took (its shard was moving, or lies on a node added since the probes were read) is
     * then read by itself, routed to its shard, as every load is when they are fewer than the nodes.
     */
    private void readByNode(Map<String, Long> versions, Map<String, List<RecordedEntry>> byLoad, Set<String> archived) {
        String[] loads = versions.keySet().toArray(String[]::new);
        Long[] after = versions.values().toArray(Long[]::new);
        Set<String> owned = new HashSet<>();
        List<Row> read = nodes.fewerThanNodes(loads.length) ? List.of()
                : nodes.rowsOfEveryNode(OnCitus.READ_HERE, Tuple.tuple().addArrayOfString(loads).addArrayOfLong(after));
        for (Row row : read) {
            String loadId = row.getString("owned");
            owned.add(loadId);
            if (row.getLong("seq") == null) {
                continue;
            }
            if (isMarker(row)) {
                archived.add(loadId);
            }
            byLoad.get(loadId).add(entry(row));
        }
        List<String> left = versions.keySet().stream().filter(id -> !owned.contains(id)).toList();
        List<Future<RowSet<Row>>> reads = new ArrayList<>();
        left.forEach(id -> reads.add(pool.preparedQuery(READ_AFTER_ONE).execute(Tuple.of(id, versions.get(id)))));
        Pg.await(Future.all(reads));
        for (int i = 0; i < left.size(); i++) {
            for (Row row : reads.get(i).result()) {
                if (isMarker(row)) {
                    archived.add(left.get(i));
                }
                byLoad.get(left.get(i)).add(entry(row));
            }
        }
    }

    private static boolean isMarker(Row row) {
        return LogEntry.KIND_ARCHIVED.equals(row.getString("kind"));
    }

    private static RecordedEntry entry(Row row) {
        return new RecordedEntry(row.getLong("seq"), Pg.instant(row, "recorded_at"),
                LogCodec.decode(row.getString("kind"), row.getString("body")));
    }

    @Override
    public boolean contains(String loadId, String entryId) {
        return Pg.await(pool.preparedQuery(CONTAINS).execute(Tuple.of(loadId, entryId))).size() == 1;
    }

    /**
     * In one statement (CONTAINS_ANY); on Citus a node at a time ({@link OnCitus#CONTAINS_HERE}) unless
     * the pairs' loads are fewer than the nodes, the pairs no node answered (their shards were
     * moving) then asked in one statement.
     */
    @Override
    public List<Boolean> contains(List<String> loadIds, List<String> entryIds) {
        if (loadIds.isEmpty()) {
            return List.of();
        }
        Set<String> held = new HashSet<>();
        List<String> loadsLeft = loadIds;
        List<String> entriesLeft = entryIds;
        if (distributed && !nodes.fewerThanNodes((int) loadIds.stream().distinct().count())) {
            Set<String> owned = new HashSet<>();
            for (Row row : nodes.rowsOfEveryNode(OnCitus.CONTAINS_HERE, Tuple.tuple()
                    .addArrayOfString(loadIds.toArray(String[]::new)).addArrayOfString(entryIds.toArray(String[]::new)))) {
                owned.add(row.getString("owned"));
                if (row.getBoolean("held")) {
                    held.add(row.getString("owned") + '\u0000' + row.getString("entry_id"));
                }
            }
            loadsLeft = new ArrayList<>();
            entriesLeft = new ArrayList<>();
            for (int i = 0; i < loadIds.size(); i++) {
                if (!owned.contains(loadIds.get(i))) {
                    loadsLeft.add(loadIds.get(i));
                    entriesLeft.add(entryIds.get(i));
                }
            }
        }
        if (!loadsLeft.isEmpty()) {
            Pg.await(pool.preparedQuery(CONTAINS_ANY).execute(Tuple.tuple().addArrayOfString(loadsLeft.toArray(String[]::new))
                            .addArrayOfString(entriesLeft.toArray(String[]::new))))
                    .forEach(row -> held.add(row.getString("load_id") + '\u0000' + row.getString("entry_id")));
        }
        List<Boolean> answers = new ArrayList<>(loadIds.size());
        for (int i = 0; i < loadIds.size(); i++) {
            answers.add(held.contains(loadIds.get(i) + '\u0000' + entryIds.get(i)));
        }
        return answers;
    }

    @Override
    public long append(String loadId, List<LogEntry> entries, long expectedVersion, List<OutboxMessage> outbox) {
        Append append = new Append(loadId, entries, expectedVersion, outbox);
        try {
            Written written = write(List.of(append));
            if (written.failure() != null) {
                throw written.failure();
            }
            if (!written.loads().contains(loadId)) {
                throw new ConcurrencyConflictException(loadId, expectedVersion, null);
            }
        } catch (RuntimeException e) {
            if (Pg.violates(e, "event_log_pkey")) {
                throw new ConcurrencyConflictException(loadId, expectedVersion, e);
            }
            if (Pg.violates(e, "event_log_entry_key")) {
                throw new DuplicateEntryException(loadId, entries.stream().map(LogEntry::entryId).toList(), e);
            }
            if (Pg.violates(e, "outbox_pkey")) {
                throw new DuplicateActionKeyException(loadId, outbox.stream().map(OutboxMessage::outboxId).toList(), e);
            }
            if (Pg.violatesUnnamed(e)) {
                throw whichKey(append, e);
            }
            throw e;
        }
        return expectedVersion + entries.size();
    }

    /**
     * Which key a unique violation Citus did not name was, told by the rows as they are now: a
     * log that moved past the expected version is a conflict (as {@code event_log_pkey}), an
     * entry already in it a duplicate ({@code event_log_entry_key}), else the outbox's key.
     */
    private RuntimeException whichKey(Append append, RuntimeException violation) {
        String loadId = append.loadId();
        long version = Pg.await(pool.preparedQuery(VERSION).execute(Tuple.of(loadId))).iterator().next().getLong(0);
        if (version != append.expectedVersion()) {
            return new ConcurrencyConflictException(loadId, append.expectedVersion(), violation);
        }
        List<String> entryIds = append.entries().stream().map(LogEntry::entryId).toList();
        if (entryIds.stream().anyMatch(id -> contains(loadId, id))) {
            return new DuplicateEntryException(loadId, entryIds, violation);
        }
        return new DuplicateActionKeyException(loadId, append.outbox().stream().map(OutboxMessage::outboxId).toList(),
                violation);
    }

    @Override
    public Set<String> appendAll(List<Append> appends) {
        Set<String> loads = new LinkedHashSet<>();
        for (Append append : appends) {
            if (!loads.add(append.loadId())) {
                throw new IllegalArgumentException("load " + append.loadId() + " appears twice in one batch");
            }
        }
        if (appends.isEmpty()) {
            return Set.of();
        }
        Written written;
        try {
            written = write(appends);
        } catch (RuntimeException e) {
            throw rejectedOrNot(loads, Set.of(), e);
        }
        if (written.failure() != null) {
            throw rejectedOrNot(loads, written.loads(), written.failure());
        }
        loads.removeAll(written.loads());
        return loads;
    }

    /** A unique violation as the batch's rejection (naming the loads written, on Citus), anything else as it is. */
    private static RuntimeException rejectedOrNot(Set<String> loads, Set<String> written, RuntimeException e) {
        if (Pg.violates(e, "event_log_pkey") || Pg.violates(e, "event_log_entry_key") || Pg.violates(e, "outbox_pkey")
                || Pg.violatesUnnamed(e)) {
            return new BatchAppendRejectedException(List.copyOf(loads), written, e);
        }
        return e;
    }

    /**
     * What a write did: the loads it appended, and on a distributed log the first failure (the
     * appends that committed elsewhere stand, each load whole).
     */
    private record Written(Set<String> loads, RuntimeException failure) {
    }

    /**
     * Runs {@link #APPEND}; on a distributed log fewer loads than nodes by {@link #eachOnItsNode},
     * a batch {@link #byNode}.
     */
    private Written write(List<Append> appends) {
        OffsetDateTime now = Pg.at(clock.instant());
        Written written;
        if (!distributed) {
            Tuple params = entries(Tuple.tuple().addOffsetDateTime(now), appends);
            OutboxInsert.bind(params, appends.stream().flatMap(a -> a.outbox().stream()).toList());
            Set<String> loads = new HashSet<>();
            Pg.await(pool.preparedQuery(APPEND).execute(params)).forEach(row -> loads.add(row.getString("load_id")));
            written = new Written(loads, null);
        } else if (nodes.fewerThanNodes(appends.size())) {
            written = eachOnItsNode(appends, now);
        } else {
            written = byNode(appends, now);
        }
        if (appends.stream().anyMatch(a -> !a.outbox().isEmpty() && written.loads().contains(a.loadId()))) {
            wakeups.wake(PgNotifications.OUTBOX);
        }
        return written;
    }

    /**
     * A batch on a distributed log: {@link OnCitus#APPEND_HERE} on every node at once, each
     * writing its loads in one transaction of its own. A load no node took (its shard was
     * moving, or lies on a node added since the probes were read) is then appended by itself.
     */
    private Written byNode(List<Append> appends, OffsetDateTime now) {
        Tuple batch = entries(Tuple.tuple().addOffsetDateTime(now), appends);
        OutboxInsert.bind(batch, appends.stream().flatMap(a -> a.outbox().stream()).toList());
        List<Future<RowSet<Row>>> calls = nodes.onEveryNode(OnCitus.APPEND_HERE, batch);
        Set<String> owned = new HashSet<>();
        Set<String> written = new HashSet<>();
        RuntimeException failure = null;
        for (Future<RowSet<Row>> call : calls) {
            if (call.failed()) {
                if (!nodes.refused(call.cause()) && failure == null) {
                    failure = runtime(call.cause());
                }
                continue;
            }
            for (Row row : call.result()) {
                owned.add(row.getString("owned"));
                if (row.getBoolean("appended")) {
                    written.add(row.getString("owned"));
                }
            }
        }
        if (failure != null) {
            return new Written(written, failure);
        }
        List<Append> left = appends.stream().filter(a -> !owned.contains(a.loadId())).toList();
        if (left.isEmpty()) {
            return new Written(written, null);
        }
        Written rest = eachOnItsNode(left, now);
        written.addAll(rest.loads());
        return new Written(written, rest.failure());
    }

    /**
     * {@link OnCitus#APPEND_HERE} for every load at once, each its own probe (Citus sends the call
     * to the load's node), each committing by itself.
     */
    private Written eachOnItsNode(List<Append> appends, OffsetDateTime now) {
        List<Future<RowSet<Row>>> calls = new ArrayList<>();
        for (Append append : appends) {
            Tuple params = entries(Tuple.tuple().addString(append.loadId()).addArrayOfString(new String[0])
                    .addOffsetDateTime(now), List.of(append));
            OutboxInsert.bind(params, append.outbox());
            calls.add(pool.preparedQuery(OnCitus.APPEND_HERE).execute(params));
        }
        CitusNodes.awaitEvery(calls);
        Set<String> written = new HashSet<>();
        RuntimeException failure = null;
        for (Future<RowSet<Row>> call : calls) {
            if (call.failed()) {
                if (failure == null) {
                    failure = runtime(call.cause());
                }
                continue;
            }
            for (Row row : call.result()) {
                if (row.getBoolean("appended")) {
                    written.add(row.getString("owned"));
                }
            }
        }
        return new Written(written, failure);
    }

    private static RuntimeException runtime(Throwable cause) {
        return cause instanceof RuntimeException e ? e : new IllegalStateException(cause);
    }

    /**
     * Adds one array per column of the entries of {@code appends} to {@code params}, each entry's
     * load and expected version first ({@link #APPEND}, {@link OnCitus#APPEND_HERE}).
     */
    private static Tuple entries(Tuple params, List<Append> appends) {
        int n = appends.stream().mapToInt(a -> a.entries().size()).sum();
        String[] entryLoads = new String[n];
        Long[] versions = new Long[n];
        Integer[] ords = new Integer[n];
        String[] ids = new String[n];
        String[] kinds = new String[n];
        String[] types = new String[n];
        OffsetDateTime[] occurred = new OffsetDateTime[n];
        String[] correlations = new String[n];
        String[] causations = new String[n];
        String[] bodies = new String[n];
        int i = 0;
        for (Append append : appends) {
            int ord = 0;
            for (LogEntry entry : append.entries()) {
                entryLoads[i] = append.loadId();
                versions[i] = append.expectedVersion();
                ords[i] = ++ord;
                ids[i] = entry.entryId();
                kinds[i] = entry.kind();
                types[i] = entry.typeName();
                occurred[i] = Pg.at(entry.occurredAt());
                correlations[i] = entry.correlationId();
                causations[i] = entry.causationId();
                bodies[i] = LogCodec.encode(entry);
                i++;
            }
        }
        return params.addArrayOfString(entryLoads).addArrayOfLong(versions).addArrayOfInteger(ords).addArrayOfString(ids)
                .addArrayOfString(kinds).addArrayOfString(types).addArrayOfOffsetDateTime(occurred).addArrayOfString(correlations).addArrayOfString(causations)
                .addArrayOfString(bodies);
    }
}
