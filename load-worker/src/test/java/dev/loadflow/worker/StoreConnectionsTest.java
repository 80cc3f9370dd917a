package dev.loadflow.worker;

import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.pg.Pg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/** The stores' pool connects with the session settings application.properties gives it. */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class StoreConnectionsTest {

    @Inject
    Pool pool;

    @Test
    void theStoresConnectionsNeverPlanASequentialScan() {
        String setting = Pg.await(pool.query("SHOW enable_seqscan").execute()).iterator().next().getString(0);

        assertThat(setting).as("a plan made while a table looked empty must not scan it whole as it grows").isEqualTo("off");
    }

    @Test
    void noStatementIsCompiledByJit() {
        String setting = Pg.await(pool.query("SHOW jit").execute()).iterator().next().getString(0);
        StringBuilder plan = new StringBuilder();
        // held_load has no index on state: with scans off, its count is costed far past jit_above_cost
        Pg.await(pool.query("EXPLAIN (ANALYZE) SELECT count(*) FROM held_load WHERE state <> 'skipped'").execute())
                .forEach(row -> plan.append(row.getString(0)).append('\n'));

        assertThat(setting).as("compiling a keyed statement costs PostgreSQL far more than running it").isEqualTo("off");
        assertThat(plan.toString()).doesNotContain("JIT");
    }

    @Test
    void eachStatementKeepsTheGenericPlanThatGenericPlansTestChecks() {
        String setting = Pg.await(pool.query("SHOW plan_cache_mode").execute()).iterator().next().getString(0);

        assertThat(setting).as("a custom plan per call re-plans the partitioned log each time").isEqualTo("force_generic_plan");
    }

    /** On-call reads pg_stat_activity and pg_locks by service: the pool's and the LISTEN connection's names. */
    @Test
    void theServicesConnectionsCarryItsName() {
        String pooled = Pg.await(pool.query("SELECT current_setting('application_name')").execute()).iterator().next().getString(0);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(Pg.await(pool.query(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'load-worker listen'")
                .execute()).iterator().next().getLong("n")).as("the LISTEN connection").isEqualTo(1));

        assertThat(pooled).isEqualTo("load-worker");
    }

    @Test
    void aQueryThatCouldScanUsesAnIndexInstead() {
        StringBuilder plan = new StringBuilder();
        Pg.await(pool.query("EXPLAIN SELECT * FROM outbox WHERE status = 'dispatched' AND outbox_id > ''").execute())
                .forEach(row -> plan.append(row.getString(0)).append('\n'));

        assertThat(plan.toString()).as("the outbox is empty here, where a scan is cheapest").doesNotContain("Seq Scan");
    }
}
