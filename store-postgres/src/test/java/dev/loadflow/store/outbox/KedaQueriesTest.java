package dev.loadflow.store.outbox;

import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queries KEDA scales by, as the keda component ships them, run as KEDA runs them: a login
 * that is only a member of {@code loadflow_scaler}, which reads two counts and no table. The worker's counts loads with a visible
 * message (none in flight); the dispatcher's counts due rows but not those of a channel whose circuit is open.
 */
class KedaQueriesTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("keda_queries");

    private static final Path KEDA = Path.of("..", "deploy", "k8s", "components", "keda", "keda.yaml");
    private static final Pattern QUERY = Pattern.compile("^\\s*query: \"(.*)\"$", Pattern.MULTILINE);

    private static List<String> queries() throws Exception {
        List<String> queries = new ArrayList<>();
        Matcher m = QUERY.matcher(Files.readString(KEDA));
        while (m.find()) {
            queries.add(m.group(1));
        }
        return queries;
    }

    @Test
    void aReadOnlyLoginCountsTheWorkersLoadsAndTheDispatchersRowsLeavingOutOpenCircuits() throws Exception {
        var db = PG.database();
        db.execute("""
                INSERT INTO load_queue_group (load_id, visible_at) VALUES
                    ('L-1', now() - interval '1 second'), ('L-2', now() - interval '1 second'), ('L-3', now() + interval '1 hour');
                INSERT INTO load_queue_group (load_id, visible_at, in_flight_handle, in_flight_until) VALUES
                    ('L-4', now() - interval '1 second', gen_random_uuid(), now() + interval '5 minutes'),
                    ('L-5', now() - interval '10 minutes', gen_random_uuid(), now() - interval '5 minutes');
                INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, available_at, created_at) VALUES
                    ('L-1/a/1/send_sms', 'L-1', 'send_sms', 'sms', '{}', 'pending', now() - interval '1 second', now()),
                    ('L-1/a/1/create_hero_task', 'L-1', 'create_hero_task', 'hero', '{}', 'pending', now() - interval '1 second', now()),
                    ('L-2/a/1/create_hero_task', 'L-2', 'create_hero_task', 'hero', '{}', 'pending', now() + interval '1 hour', now()),
                    ('L-3/a/1/create_hero_task', 'L-3', 'create_hero_task', 'hero', '{}', 'dispatched', now() - interval '1 hour', now());
                INSERT INTO channel_circuit (channel, open_until, opened_at) VALUES
                    ('sms', now() + interval '1 minute', now()), ('slack', now() - interval '1 minute', now())""");
        String login = "keda_" + UUID.randomUUID().toString().substring(0, 8);
        db.execute("CREATE ROLE " + login + " LOGIN PASSWORD 'keda' IN ROLE loadflow_scaler");
        try (Connection keda = DriverManager.getConnection(db.jdbcUrl(), login, "keda")) {
            List<String> queries = queries();
            assertThat(queries).hasSize(2);
            assertThat(queries).allSatisfy(q -> assertThat(q).as("schema-qualified").contains("public."));

            assertThat(count(keda, queries.get(0))).as("loads with a visible message: not one in flight, one whose visibility timeout ended")
                    .isEqualTo(3);
            assertThat(count(keda, queries.get(1))).as("the due hero row; the due SMS row waits for its open circuit")
                    .isEqualTo(1);
            for (String table : List.of("outbox", "load_queue_group", "event_log", "admin_audit")) {
                try (ResultSet may = keda.createStatement().executeQuery(
                        "SELECT has_table_privilege('public." + table + "', 'SELECT') OR has_table_privilege('public." + table
                                + "', 'INSERT')")) {
                    may.next();
                    assertThat(may.getBoolean(1)).as("the login neither reads nor writes " + table).isFalse();
                }
            }
        } finally {
            db.execute("DROP ROLE " + login);
        }
    }

    private static long count(Connection connection, String query) throws Exception {
        try (ResultSet rs = connection.createStatement().executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
