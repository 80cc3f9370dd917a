package dev.loadflow.store;

import dev.loadflow.store.alert.PgOpsAlerts;
import dev.loadflow.store.audit.AuditInsert;
import dev.loadflow.store.audit.PgAdminAudit;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.outbox.PgChannelCircuits;
import dev.loadflow.store.outbox.PgOutbox;
import dev.loadflow.store.processed.PgProcessedEvents;
import dev.loadflow.store.queue.PgHeldLoads;
import dev.loadflow.store.queue.PgLoadQueue;
import dev.loadflow.store.retention.PgRetention;
import dev.loadflow.store.stage.PgLoadStages;
import dev.loadflow.store.timer.PgTimerStore;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every statement of the stores, planned as the services' connections plan it: one generic plan
 * per connection ({@code plan_cache_mode=force_generic_plan}), made on a new database whose
 * tables are empty and have no statistics, with sequential scans off. Such a plan is kept for
 * every call after, whatever the tables grow to: none may scan a table whole, and a statement on
 * the partitioned log must prune to the load's partition when it runs.
 */
class GenericPlansTest {

    private static final List<Class<?>> STORES = List.of(PgEventStore.class, PgLoadQueue.class, statementsOf("queue.Queue"),
            PgHeldLoads.class, PgOutbox.class, statementsOf("outbox.Outbox"), PgChannelCircuits.class, PgTimerStore.class,
            PgProcessedEvents.class, PgLoadStages.class, PgRetention.class, PgOpsAlerts.class, PgAdminAudit.class,
            AuditInsert.class, dev.loadflow.store.sop.PgSopVersions.class);

    /** Statements that read a whole table on purpose: the held loads (a row per load held by poison) counted and listed. */
    private static final Set<String> SCANS_ON_PURPOSE = Set.of("PgHeldLoads.COUNT", "PgHeldLoads.LIST");

    private static final Pattern SEQ_SCAN = Pattern.compile("Seq Scan on (\\w+)");
    private static final Pattern CONDITION = Pattern.compile("(Cond|Filter|Sort Key|Group Key|Merge Key|Hash Key):");
    private static final Pattern PARTITION_SCAN = Pattern.compile("Scan .*on event_log_p\\d+");

    private static TestDatabase database;
    private static Connection connection;

    @BeforeAll
    static void connect() throws SQLException {
        database = PostgresServer.get().createDatabase("generic_plans");
        connection = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        try (Statement sql = connection.createStatement()) {
            // as the services' pools (application.properties)
            sql.execute("SET enable_seqscan = off");
            sql.execute("SET jit = off");
            sql.execute("SET plan_cache_mode = force_generic_plan");
        }
    }

    @AfterAll
    static void close() throws SQLException {
        connection.close();
        database.close();
    }

    @Test
    void noStatementsGenericPlanScansATableWhole() throws Exception {
        Map<String, String> plans = plans(false);
        Map<String, List<String>> scans = new LinkedHashMap<>();
        plans.forEach((name, plan) -> {
            List<String> tables = new ArrayList<>();
            Matcher scan = SEQ_SCAN.matcher(plan);
            while (scan.find()) {
                tables.add(scan.group(1));
            }
            if (!tables.isEmpty() && !SCANS_ON_PURPOSE.contains(name)) {
                scans.put(name, tables);
            }
        });

        assertThat(plans).as("the stores' statements were found and planned").hasSizeGreaterThan(40);
        assertThat(scans).as("statements whose kept plan scans a table whole").isEmpty();
    }

    @Test
    void aStatementOnTheLogReadsOnlyItsLoadsPartition() throws Exception {
        int contains = partitionsRead(PgEventStore.class, "CONTAINS", "('load-1', 'e-1')");
        int ingest = partitionsRead(statementsOf("queue.Queue"), "ENQUEUE_ALL_UNLESS_LOGGED",
                "(ARRAY['load-1'], ARRAY['e-1'], ARRAY['{}'], now())");

        assertThat(contains).as("pruned when it runs, not when it is planned").isEqualTo(1);
        assertThat(ingest).isEqualTo(1);
    }

    /**
     * Columns kept out of ANALYZE (V15: the JSON bodies, trace headers and ids nothing looks up)
     * are on no plan's condition or sort key (but inside an expression an index holds, which the
     * index's statistics cover), so no estimate ever lacks their statistics; and the
     * log's setting reached each of its partitions.
     */
    @Test
    void noStatementFiltersOrSortsOnAColumnWithoutStatistics() throws Exception {
        Map<String, List<String>> unanalyzed = new LinkedHashMap<>();
        try (Statement sql = connection.createStatement();
             ResultSet rows = sql.executeQuery("""
                     SELECT c.relname, a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                     WHERE c.relnamespace = current_schema()::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
                       AND a.attstattarget = 0 ORDER BY 1, 2""")) {
            while (rows.next()) {
                unanalyzed.computeIfAbsent(rows.getString(1), t -> new ArrayList<>()).add(rows.getString(2));
            }
        }
        Set<String> columns = new java.util.TreeSet<>();
        unanalyzed.values().forEach(columns::addAll);
        Pattern column = Pattern.compile("\\.(" + String.join("|", columns) + ")\\b");
        // an expression an index holds has statistics of its own (the index's), whatever its column's setting
        List<Pattern> indexed = new ArrayList<>();
        try (Statement sql = connection.createStatement();
             ResultSet rows = sql.executeQuery("""
                     SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = current_schema()""")) {
            Pattern expression = Pattern.compile("\\((\\w+) ->> ('[^']+'::text)\\)");
            while (rows.next()) {
                Matcher found = expression.matcher(rows.getString("indexdef"));
                while (found.find()) {
                    indexed.add(Pattern.compile(Pattern.quote("(" + rows.getString("tablename") + "." + found.group(1) + " ->> "
                            + found.group(2) + ")")));
                }
            }
        }
        Map<String, List<String>> conditions = new LinkedHashMap<>();
        plans(true).forEach((name, plan) -> plan.lines()
                .map(line -> {
                    String bare = line;
                    for (Pattern expression : indexed) {
                        bare = expression.matcher(bare).replaceAll("(indexed expression)");
                    }
                    return bare;
                })
                .filter(line -> CONDITION.matcher(line).find() && column.matcher(line).find())
                .forEach(line -> conditions.computeIfAbsent(name, n -> new ArrayList<>()).add(line.strip())));

        assertThat(unanalyzed.get("event_log")).contains("body", "causation_id");
        assertThat(unanalyzed.get("outbox")).contains("payload", "traceparent");
        for (int p = 0; p < 16; p++) {
            assertThat(unanalyzed.get(String.format("event_log_p%02d", p))).as("partition %d", p)
                    .isEqualTo(unanalyzed.get("event_log"));
        }
        assertThat(conditions).as("plan lines that filter, join or sort on a column without statistics").isEmpty();
    }

    /** A store's statements class, kept in its store's package ({@code dev.loadflow.store.<name>Statements}). */
    private static Class<?> statementsOf(String name) {
        try {
            return Class.forName("dev.loadflow.store." + name + "Statements");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    /** How many of the log's partitions the statement's generic plan reads, run (and rolled back) with {@code arguments}. */
    private static int partitionsRead(Class<?> store, String field, String arguments) throws Exception {
        Field statement = store.getDeclaredField(field);
        statement.setAccessible(true);
        try (Statement sql = connection.createStatement()) {
            sql.execute("PREPARE read_" + field + " AS " + statement.get(null));
            sql.execute("BEGIN");
            int read = 0;
            try (ResultSet rows = sql.executeQuery("EXPLAIN (ANALYZE) EXECUTE read_" + field + arguments)) {
                while (rows.next()) {
                    String line = rows.getString(1);
                    if (PARTITION_SCAN.matcher(line).find() && !line.contains("never executed")) {
                        read++;
                    }
                }
            } finally {
                sql.execute("ROLLBACK");
                sql.execute("DEALLOCATE read_" + field);
            }
            return read;
        }
    }

    /** Each statement's generic plan, by class and field name; {@code verbose}: with its columns named by table. */
    private static Map<String, String> plans(boolean verbose) throws Exception {
        Map<String, String> plans = new LinkedHashMap<>();
        int n = 0;
        for (Class<?> store : STORES) {
            for (Field field : store.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers()) || field.getType() != String.class) {
                    continue;
                }
                field.setAccessible(true);
                String sql = (String) field.get(null);
                if (sql == null || !isStatement(sql)) {
                    continue;
                }
                plans.put(store.getSimpleName() + "." + field.getName(), genericPlan("s" + n++, sql, verbose));
            }
        }
        return plans;
    }

    private static boolean isStatement(String sql) {
        String head = sql.strip().split("\\s+", 2)[0].toUpperCase();
        return Set.of("SELECT", "WITH", "INSERT", "UPDATE", "DELETE").contains(head) && !sql.contains("%");
    }

    /** PREPAREs the statement and EXPLAINs its generic plan (parameters NULL: a generic plan does not look at them). */
    private static String genericPlan(String name, String sql, boolean verbose) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("PREPARE " + name + " AS " + sql);
            int parameters;
            try (ResultSet types = statement.executeQuery(
                    "SELECT cardinality(parameter_types) FROM pg_prepared_statements WHERE name = '" + name + "'")) {
                types.next();
                parameters = types.getInt(1);
            }
            String arguments = parameters == 0 ? "" : "(" + String.join(", ", Collections.nCopies(parameters, "NULL")) + ")";
            StringBuilder plan = new StringBuilder();
            try (ResultSet rows = statement.executeQuery((verbose ? "EXPLAIN (VERBOSE) EXECUTE " : "EXPLAIN EXECUTE ") + name + arguments)) {
                while (rows.next()) {
                    plan.append(rows.getString(1)).append('\n');
                }
            }
            statement.execute("DEALLOCATE " + name);
            return plan.toString();
        }
    }
}
