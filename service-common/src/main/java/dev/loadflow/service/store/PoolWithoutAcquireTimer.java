package dev.loadflow.service.store;

import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnectOptions;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Duration;
import java.util.ArrayList;

/**
 * The reactive pool as Quarkus configures it ({@code quarkus.datasource.reactive.*}), without
 * the pool's own timer on waiting for a connection ({@code PoolOptions.connectionTimeout} 0).
 * In the Vert.x SQL client 4.5, a query whose connection attempt fails (the database is down)
 * fails at once but leaves that timer armed, and when it fires 30 s later it fails the query a
 * second time: {@code IllegalStateException: Result is already complete}, logged by Vert.x for
 * every query of an outage. A connection attempt still ends on its own connect timeout, and
 * every caller waits under its own deadline (a run's, a send's lease).
 *
 * <p>A link that goes silent is found out by {@link SilentLinkPool} within
 * {@code loadflow.db.link-timeout}, and a connection attempt ends after as long.
 */
@Singleton
public class PoolWithoutAcquireTimer implements PgPoolCreator {

    private final Duration linkTimeout;

    PoolWithoutAcquireTimer(@ConfigProperty(name = "loadflow.db.link-timeout", defaultValue = "PT5S") Duration linkTimeout) {
        if (linkTimeout.isNegative() || linkTimeout.isZero()) {
            throw new IllegalArgumentException("loadflow.db.link-timeout must be positive, got " + linkTimeout);
        }
        this.linkTimeout = linkTimeout;
    }

    @Override
    public Pool create(Input input) {
        ArrayList<SqlConnectOptions> servers = new ArrayList<>();
        for (PgConnectOptions options : input.pgConnectOptionsList()) {
            options.setConnectTimeout((int) linkTimeout.toMillis());
            servers.add(options);
        }
        return new SilentLinkPool(() -> PgBuilder.pool()
                .with(input.poolOptions().setConnectionTimeout(0))
                .connectingTo(servers)
                .using(input.vertx())
                .build(), input.vertx(), linkTimeout);
    }
}
