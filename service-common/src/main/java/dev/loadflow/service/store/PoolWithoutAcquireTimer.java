package dev.loadflow.service.store;

import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnectOptions;
import jakarta.inject.Singleton;

import java.util.ArrayList;

/**
 * The reactive pool as Quarkus configures it ({@code quarkus.datasource.reactive.*}), without
 * the pool's own timer on waiting for a connection ({@code PoolOptions.connectionTimeout} 0).
 * In the Vert.x SQL client 4.5, a query whose connection attempt fails (the database is down)
 * fails at once but leaves that timer armed, and when it fires 30 s later it fails the query a
 * second time: {@code IllegalStateException: Result is already complete}, logged by Vert.x for
 * every query of an outage. A connection attempt still ends on its own connect timeout, and
 * every caller waits under its own deadline (a run's, a send's lease).
 */
@Singleton
public class PoolWithoutAcquireTimer implements PgPoolCreator {

    @Override
    public Pool create(Input input) {
        return PgBuilder.pool()
                .with(input.poolOptions().setConnectionTimeout(0))
                .connectingTo(new ArrayList<SqlConnectOptions>(input.pgConnectOptionsList()))
                .using(input.vertx())
                .build();
    }
}
