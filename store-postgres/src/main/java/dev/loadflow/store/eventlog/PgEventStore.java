package dev.loadflow.store.eventlog;

import dev.loadflow.model.event.LogArchived;
import dev.loadflow.model.event.LogEntry;
import dev.loadflow.model.json.LogCodec;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.store.outbox.OutboxInsert;
import dev.loadflow.store.outbox.OutboxMessage;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.pg.Wakeups;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
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
public class PgEventStore implements EventStore {

    protected static final String READ = """
            SELECT seq, kind, recorded_at, body::text AS body
            FROM event_log WHERE load_id = $1 ORDER BY seq""";

    /**
     * Each load's entries after its version, one index range per load. The LATERAL subquery
     * (kept apart by its ORDER BY) makes that a nested loop: a plain join let the planner hash
     * the whole log against the handful of loads, a scan that grew with history.
     */
    protected static final String READ_AFTER = """
            SELECT k.load_id, l.seq, l.kind, l.recorded_at, l.body::text AS body
            FROM unnest($1::text[], $2::bigint[]) AS k(load_id, after)
            CROSS JOIN LATERAL (SELECT e.seq, e.kind, e.recorded_at, e.body FROM event_log e
                                WHERE e.load_id = k.load_id AND e.seq > k.after ORDER BY e.seq) l
            ORDER BY k.load_id, l.seq""";

    /**
     * A load's archived entries between two seqs: after what the caller has, before the first
     * entry the hot log showed it (should the load move again meanwhile, those are read already).
     */
    protected static final String READ_ARCHIVED = """
            SELECT seq, kind, recorded_at, body::text AS body
            FROM event_log_archive WHERE load_id = $1 AND seq > $2 AND seq < $3 ORDER BY seq""";

    protected static final String VERSION = "SELECT coalesce(max(seq), 0) FROM event_log WHERE load_id = $1";

    /**
     * The entry in the hot log ({@code %1$s}), or in the archive ({@code %2$s}, where retention moved
     * an idle load's entries: the log reads as if nothing moved). A template: {@link #CONTAINS} runs
     * it on the tables, a backend that shards the log on a load's shards.
     */
    public static final String CONTAINS_TEMPLATE = """
            (SELECT 1 FROM %1$s WHERE load_id = $1 AND entry_id = $2)
            UNION ALL
            (SELECT 1 FROM %2$s WHERE load_id = $1 AND entry_id = $2)
            LIMIT 1""";

    protected static final String CONTAINS = CONTAINS_TEMPLATE.formatted("event_log", "event_log_archive");

    /**
     * CONTAINS for many: the pairs asked for among the entries of those loads with those ids ($1
     * the loads, $2 the ids; the caller keeps the pairs it asked), in a shape a sharded log routes to
     * the loads' shards.
     */
    protected static final String CONTAINS_ANY = """
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
     *
     * <p>A template: {@code %1$s} the log, {@code %2$s} the outbox, {@code %3$s} a further condition
     * on the entries ({@code e}), empty or starting with AND. {@link #APPEND} runs it on the tables;
     * a backend that shards the log runs it on a load's shards, for that load.
     */
    public static final String APPEND_TEMPLATE = """
            WITH entries AS (
                INSERT INTO %1$s (load_id, seq, entry_id, kind, type, occurred_at, recorded_at,
                                  correlation_id, causation_id, body)
                SELECT e.load_id, e.version + e.ord, e.entry_id, e.kind, e.type, e.occurred_at, $1,
                       e.correlation_id, e.causation_id, e.body::jsonb
                FROM unnest($2::text[], $3::bigint[], $4::int[], $5::text[], $6::text[], $7::text[],
                            $8::timestamptz[], $9::text[], $10::text[], $11::text[])
                     AS e(load_id, version, ord, entry_id, kind, type, occurred_at, correlation_id, causation_id, body)
                WHERE e.version = coalesce((SELECT max(l.seq) FROM %1$s l WHERE l.load_id = e.load_id), 0)%3$s
                RETURNING load_id),
            appended AS (SELECT DISTINCT load_id FROM entries),
            queued AS (
            """ + OutboxInsert.into("%2$s", "appended", 1, 12) + """
            )
            SELECT load_id FROM appended""";

    protected static final String APPEND = APPEND_TEMPLATE.formatted("event_log", "outbox", "");

    /**
     * One load's ($1) entries after a seq ($2) in a log ({@code %1$s}): {@link #READ_AFTER} for one
     * load, where each load's read goes by itself.
     */
    public static final String READ_AFTER_ONE_TEMPLATE = """
            SELECT seq, kind, recorded_at, body::text AS body
            FROM %1$s WHERE load_id = $1 AND seq > $2 ORDER BY seq""";

    protected static final String READ_AFTER_ONE = READ_AFTER_ONE_TEMPLATE.formatted("event_log");

    protected final Pool pool;
    private final Clock clock;
    private final Wakeups wakeups;

    /** @param wakeups told after an append that queued outbox rows commits (the dispatchers' channel) */
    public PgEventStore(Pool pool, Clock clock, Wakeups wakeups) {
        this.pool = pool;
        this.clock = clock;
        this.wakeups = wakeups;
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
        readAfter(versions, byLoad, archived);
        for (String loadId : archived) {
            // the load left the hot log after the caller read it: what it has not seen is in the archive
            List<RecordedEntry> hot = byLoad.get(loadId);
            hot.addAll(0, archived(loadId, versions.get(loadId), hot.getFirst().seq()));
        }
        return byLoad;
    }

    /**
     * Adds each load's entries after its version to {@code byLoad}, and to {@code archived} the
     * loads whose entries the read met an archive marker among ({@link #READ_AFTER}, one statement).
     */
    protected void readAfter(Map<String, Long> versions, Map<String, List<RecordedEntry>> byLoad, Set<String> archived) {
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

    protected static boolean isMarker(Row row) {
        return LogEntry.KIND_ARCHIVED.equals(row.getString("kind"));
    }

    protected static RecordedEntry entry(Row row) {
        return new RecordedEntry(row.getLong("seq"), Pg.instant(row, "recorded_at"),
                LogCodec.decode(row.getString("kind"), row.getString("body")));
    }

    @Override
    public boolean contains(String loadId, String entryId) {
        return Pg.await(pool.preparedQuery(CONTAINS).execute(Tuple.of(loadId, entryId))).size() == 1;
    }

    /** In one statement ({@link #CONTAINS_ANY}). */
    @Override
    public List<Boolean> contains(List<String> loadIds, List<String> entryIds) {
        if (loadIds.isEmpty()) {
            return List.of();
        }
        Set<String> held = held(loadIds, entryIds);
        List<Boolean> answers = new ArrayList<>(loadIds.size());
        for (int i = 0; i < loadIds.size(); i++) {
            answers.add(held.contains(pair(loadIds.get(i), entryIds.get(i))));
        }
        return answers;
    }

    /** Which of the pairs (a load and an entry id each) the log holds, each as {@link #pair}. */
    protected Set<String> held(List<String> loadIds, List<String> entryIds) {
        Set<String> held = new HashSet<>();
        Pg.await(pool.preparedQuery(CONTAINS_ANY).execute(Tuple.tuple().addArrayOfString(loadIds.toArray(String[]::new))
                        .addArrayOfString(entryIds.toArray(String[]::new))))
                .forEach(row -> held.add(pair(row.getString("load_id"), row.getString("entry_id"))));
        return held;
    }

    /** A load and one of its entries' ids, as one string. */
    protected static String pair(String loadId, String entryId) {
        return loadId + '\u0000' + entryId;
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
            throw unnamed(append, e);
        }
        return expectedVersion + entries.size();
    }

    /**
     * A failure of {@code append} that names none of its keys, as it is to be thrown: as it is on
     * PostgreSQL, which names the key of every unique violation.
     */
    protected RuntimeException unnamed(Append append, RuntimeException failure) {
        return failure;
    }

    @Override
    public Unwritten appendAll(List<Append> appends) {
        Set<String> loads = new LinkedHashSet<>();
        for (Append append : appends) {
            if (!loads.add(append.loadId())) {
                throw new IllegalArgumentException("load " + append.loadId() + " appears twice in one batch");
            }
        }
        if (appends.isEmpty()) {
            return Unwritten.NONE;
        }
        Written written;
        try {
            written = write(appends);
        } catch (RuntimeException e) {
            written = new Written(Set.of(), e);
        }
        loads.removeAll(written.loads());
        if (written.failure() == null) {
            return new Unwritten(loads, Set.of());
        }
        if (isViolation(written.failure())) {
            return new Unwritten(Set.of(), loads);
        }
        throw written.failure();
    }

    /** Whether {@code e} is a unique violation of a key an append writes. */
    private boolean isViolation(RuntimeException e) {
        return Pg.violates(e, "event_log_pkey") || Pg.violates(e, "event_log_entry_key") || Pg.violates(e, "outbox_pkey")
                || isUnnamedViolation(e);
    }

    /** Whether {@code failure} is a unique violation that names no key: never, on PostgreSQL. */
    protected boolean isUnnamedViolation(RuntimeException failure) {
        return false;
    }

    /**
     * What a write did: the loads it appended, and where a write goes in parts the first failure
     * (the parts that committed stand, each load whole).
     */
    public record Written(Set<String> loads, RuntimeException failure) {
    }

    /** Writes the batch ({@link #insert}), then tells the dispatchers of the outbox rows it queued. */
    private Written write(List<Append> appends) {
        Written written = insert(appends, Pg.at(clock.instant()));
        if (appends.stream().anyMatch(a -> !a.outbox().isEmpty() && written.loads().contains(a.loadId()))) {
            wakeups.wake(PgNotifications.OUTBOX);
        }
        return written;
    }

    /** Runs {@link #APPEND}: the batch in one statement, one transaction. */
    protected Written insert(List<Append> appends, OffsetDateTime now) {
        Tuple params = entries(Tuple.tuple().addOffsetDateTime(now), appends);
        OutboxInsert.bind(params, appends.stream().flatMap(a -> a.outbox().stream()).toList());
        Set<String> loads = new HashSet<>();
        Pg.await(pool.preparedQuery(APPEND).execute(params)).forEach(row -> loads.add(row.getString("load_id")));
        return new Written(loads, null);
    }

    /**
     * Adds one array per column of the entries of {@code appends} to {@code params}, each entry's
     * load and expected version first ({@link #APPEND}'s order).
     */
    protected static Tuple entries(Tuple params, List<Append> appends) {
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
