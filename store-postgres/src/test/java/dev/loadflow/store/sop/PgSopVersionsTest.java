package dev.loadflow.store.sop;

import dev.loadflow.model.policy.SopRules;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.testing.PgBackend;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Transaction;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static dev.loadflow.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

/** Clients' SOPs as numbered versions on PostgreSQL: each change the next version, audited with it; the newest is current. */
class PgSopVersionsTest {

    @RegisterExtension
    static final PgBackend PG = new PgBackend("sop_versions");

    private static final Instant T0 = Instant.parse("2026-12-05T09:00:00Z");
    private static final SopRules FIRST = new SopRules(Duration.ofMinutes(30), 3, "Load {loadId}: ETA?", "#hero-desk");
    private static final SopRules SECOND = new SopRules(Duration.ofMinutes(15), 2, "Load {loadId}, try {attempt}: ETA?", "#hero-a",
            List.of(URI.create("https://tms.example/stages")));

    private SopVersions sops;

    @BeforeEach
    void setUp() {
        PG.database().truncateAll();
        sops = new PgSopVersions(PG.pool(), PG.wakeups());
    }

    private static AuditRecord audit(String clientId, String reason) {
        return new AuditRecord("ops@example", "load-worker", "sop.put", clientId, "{\"reason\": \"" + reason + "\"}");
    }

    @Test
    void eachChangeIsTheNextVersionWithItsAuthorItsReasonAndItsAuditRow() {
        SopVersions.Added first = sops.add("client-a", FIRST, "the first SOP", audit("client-a", "the first SOP"), T0);
        SopVersions.Added second = sops.add("client-a", SECOND, "shorter waits", audit("client-a", "shorter waits"), T0.plusSeconds(60));
        sops.add("client-b", FIRST, "client b's own", audit("client-b", "client b's own"), T0);

        assertThat(first.version().version()).isEqualTo(1);
        assertThat(second.version()).isEqualTo(new SopVersion("client-a", 2, SECOND, "ops@example", T0.plusSeconds(60), "shorter waits"));
        assertThat(sops.current("client-a")).contains(second.version());
        assertThat(sops.history("client-a")).extracting(SopVersion::version).containsExactly(2, 1);
        assertThat(sops.history("client-a").getLast().rules()).as("rules read back as written").isEqualTo(FIRST);
        assertThat(sops.currents()).extracting(SopVersion::clientId, SopVersion::version)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("client-a", 2), org.assertj.core.groups.Tuple.tuple("client-b", 1));
        assertThat(sops.current("client-c")).isEmpty();
        assertThat(PG.database().count("SELECT count(*) FROM admin_audit WHERE action = 'sop.put' AND target = 'client-a' AND id = "
                + second.auditId() + " AND result ->> 'version' = '2'")).as("the version's audit row, in its statement").isEqualTo(1);
    }

    @Test
    void aNewVersionWakesTheWorkersAfterItCommits() {
        long before = PG.notifications().signal(PgNotifications.SOP).generation();

        sops.add("client-a", FIRST, "the first SOP", audit("client-a", "the first SOP"), T0);

        await().atMost(Duration.ofSeconds(10)).until(() -> PG.notifications().signal(PgNotifications.SOP).generation() > before);
    }

    @Test
    void anImportOfManyClientsAddsAllOrNoneWhenAnotherChangeComesFirst() throws Exception {
        SqlConnection other = Pg.await(PG.pool().getConnection());
        Transaction racing = Pg.await(other.begin());
        Pg.await(other.query("INSERT INTO sop_version (client_id, version, rules, made_by, made_at, reason) "
                + "VALUES ('client-b', 1, '{}', 'someone@example', now(), 'first')").execute());
        List<SopVersions.Change> changes = List.of(
                new SopVersions.Change("client-a", FIRST, "import", audit("client-a", "import")),
                new SopVersions.Change("client-b", SECOND, "import", audit("client-b", "import")));

        CompletableFuture<List<SopVersions.Added>> importing = CompletableFuture.supplyAsync(() -> sops.addAll(changes, T0));
        await().atMost(Duration.ofSeconds(10)).until(() -> PG.database().count(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%sop_version%'") == 1);
        Pg.await(racing.commit());
        other.close();

        assertThat(importing).failsWithin(Duration.ofSeconds(10)).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(SopChangedMeanwhileException.class);
        assertThat(sops.current("client-a")).as("client a's version went with client b's").isEmpty();
        assertThat(PG.database().count("SELECT count(*) FROM admin_audit WHERE action = 'sop.put'")).isZero();
        assertThat(sops.addAll(changes.subList(0, 1), T0)).singleElement()
                .satisfies(added -> assertThat(added.version().version()).isEqualTo(1));
    }
}
