package dev.loadflow.store.alert;

import dev.loadflow.store.pg.Wakeups;
import java.time.Clock;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The alerts a dead row raises, as an on-call engineer sees them: one per row, kind and death,
 * however often the dispatcher raises it, and acknowledged once, audited. Runs on Citus as on
 * PostgreSQL ({@code .ci/run}).
 */
public class PgOpsAlertsTest {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("ops_alerts");

    /** The stores under test: PostgreSQL's (a backend of its own overrides this in its subclass of the suite). */
    protected PgStores stores(Clock clock, Wakeups wakeups) {
        return new PgStores(PG.pool(), clock, wakeups);
    }

    private static final Instant T0 = Instant.parse("2026-12-02T07:00:00Z");
    private static final String LOAD = "481207";
    private static final String ROW = LOAD + "/ask:eta_request:ping_0700/1/send_sms";

    private PgOpsAlerts alerts;

    @BeforeEach
    void setUp() {
        PG.database().truncateAll();
        alerts = stores(Clock.systemUTC(), Wakeups.NONE).opsAlerts();
    }

    @Test
    void aDeadRowRaisesOneAlertHoweverOftenItIsRaisedAndANewOneWhenItDiesAgain() {
        PG.database().execute("""
                INSERT INTO outbox (outbox_id, load_id, action_type, channel, payload, status, attempts, available_at, created_at)
                VALUES ('%1$s', '%2$s', 'send_sms', 'sms', '{}', 'dead', 3, now(), now());
                INSERT INTO outbox_failure (outbox_id, load_id, attempt, failed_at, failure, parked)
                VALUES ('%1$s', '%2$s', 3, now(), 'permanent: 21211', true)""".formatted(ROW, LOAD));

        assertThat(alerts.raise(LOAD, ROW, "send_sms", "dead", "SMS refused: 21211", T0)).isTrue();
        assertThat(alerts.raise(LOAD, ROW, "send_sms", "dead", "SMS refused: 21211", T0.plusSeconds(5)))
                .as("the same death, raised again after a crash").isFalse();

        PG.database().execute("""
                INSERT INTO outbox_failure (outbox_id, load_id, attempt, failed_at, failure, parked)
                VALUES ('%s', '%s', 1, now() + interval '1 minute', 'permanent: 21610', true)""".formatted(ROW, LOAD));
        assertThat(alerts.raise(LOAD, ROW, "send_sms", "dead", "SMS refused: 21610", T0.plusSeconds(60)))
                .as("replayed and dead again: a new alert").isTrue();

        assertThat(alerts.list(null, 0, 10)).extracting(OpsAlert::message)
                .containsExactly("SMS refused: 21610", "SMS refused: 21211");
    }

    @Test
    void anAlertIsAcknowledgedOnceAndTheChangeAudited() {
        alerts.raise(LOAD, ROW, "send_sms", "dead", "SMS refused: 21211", T0);
        long id = alerts.list(null, 0, 10).getFirst().id();
        AuditRecord audit = new AuditRecord("oncall@broker.example", "outbox-dispatcher", "alert.acknowledge",
                String.valueOf(id), "{}");

        assertThat(alerts.acknowledge(id, T0.plusSeconds(60), audit)).isPresent();
        assertThat(alerts.acknowledge(id, T0.plusSeconds(90), audit)).as("already acknowledged").isEmpty();

        assertThat(alerts.list(null, 0, 10)).singleElement()
                .satisfies(alert -> assertThat(alert.acknowledgedAt()).isEqualTo(T0.plusSeconds(60)));
        assertThat(PG.database().count("SELECT count(*) FROM admin_audit WHERE action = 'alert.acknowledge'")).isEqualTo(1);
    }
}
