package dev.loadflow.service.store;

import dev.loadflow.store.pg.Pg;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** What the server is told by a connection the services make, on plain PostgreSQL and on a Citus coordinator. */
class PoolWithoutAcquireTimerTest {

    private final Vertx vertx = Vertx.vertx();
    private final TestDatabase database = PostgresServer.get().createDatabase("pool_settings", false);

    @AfterEach
    void close() {
        vertx.close();
        database.close();
    }

    @Test
    void onCitusEachConnectionPlansPerCallAndKeepsToOneConnectionPerWorker() {
        PgConnectOptions options = new PoolWithoutAcquireTimer(Duration.ofSeconds(3), true)
                .configure(database.connectOptions().addProperty("plan_cache_mode", "force_generic_plan"));

        assertThat(setting(options, "plan_cache_mode"))
                .as("Citus plans a distributed statement for its values: a generic plan would be made per call anyway")
                .isEqualTo("auto");
        assertThat(setting(options, "citus.max_adaptive_executor_pool_size"))
                .as("a statement over many shards opens no new connections to the workers").isEqualTo("1");
        assertThat(options.getConnectTimeout()).isEqualTo(3_000);
    }

    @Test
    void onPlainPostgresqlTheConfiguredSettingsStand() {
        PgConnectOptions options = new PoolWithoutAcquireTimer(Duration.ofSeconds(3), false)
                .configure(database.connectOptions().addProperty("plan_cache_mode", "force_generic_plan"));

        assertThat(setting(options, "plan_cache_mode")).isEqualTo("force_generic_plan");
        assertThat(options.getProperties()).doesNotContainKey("citus.max_adaptive_executor_pool_size");
    }

    private String setting(PgConnectOptions options, String name) {
        Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(1)).connectingTo(options).using(vertx).build();
        try {
            return Pg.await(pool.query("SELECT current_setting('" + name + "')").execute()).iterator().next().getString(0);
        } finally {
            pool.close();
        }
    }
}
