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
import java.util.Map;

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
 *
 * <p>On a Citus coordinator ({@code loadflow.db.citus}) each connection also carries
 * {@link #ON_CITUS}: Citus plans a distributed statement for the values it is given, so no
 * generic plans; and a statement over many shards runs over the one connection per worker the
 * session keeps, not over new ones: with Citus's default of up to 16, every count or lookup over
 * many shards opened connections to the workers and closed them at its transaction's end, two to
 * three new backends a second on each worker with the services idle.
 */
@Singleton
public class PoolWithoutAcquireTimer implements PgPoolCreator {

    /** The session settings of every connection to a Citus coordinator, over the configured ones. */
    static final Map<String, String> ON_CITUS = Map.of(
            "plan_cache_mode", "auto",
            "citus.max_adaptive_executor_pool_size", "1");

    private final Duration linkTimeout;
    private final boolean citus;
    /** The servers' options as the pool was made with them, for a pool of another login ({@link #asLogin}). */
    private volatile java.util.List<PgConnectOptions> made = java.util.List.of();
    private volatile io.vertx.core.Vertx vertx;

    PoolWithoutAcquireTimer(@ConfigProperty(name = "loadflow.db.link-timeout", defaultValue = "PT5S") Duration linkTimeout,
                            @ConfigProperty(name = "loadflow.db.citus", defaultValue = "false") boolean citus) {
        if (linkTimeout.isNegative() || linkTimeout.isZero()) {
            throw new IllegalArgumentException("loadflow.db.link-timeout must be positive, got " + linkTimeout);
        }
        this.linkTimeout = linkTimeout;
        this.citus = citus;
    }

    @Override
    public Pool create(Input input) {
        ArrayList<SqlConnectOptions> servers = new ArrayList<>();
        ArrayList<PgConnectOptions> copies = new ArrayList<>();
        for (PgConnectOptions options : input.pgConnectOptionsList()) {
            servers.add(configure(options));
            copies.add(new PgConnectOptions(options));
        }
        this.made = copies;
        this.vertx = input.vertx();
        return new SilentLinkPool(() -> PgBuilder.pool()
                .with(input.poolOptions().setConnectionTimeout(0))
                .connectingTo(servers)
                .using(input.vertx())
                .build(), input.vertx(), linkTimeout);
    }

    /**
     * The first server's options as the service's pool connects with them (TLS included), for a
     * connection made beside the pool: the LISTEN connection. Only once the service's own pool is made.
     */
    public PgConnectOptions server() {
        if (made.isEmpty()) {
            throw new IllegalStateException("the service's pool is not made yet");
        }
        return new PgConnectOptions(made.getFirst());
    }

    /**
     * A small pool to the same servers with the same settings (TLS, timeouts, session settings),
     * as another login: retention's ({@code loadflow.retention.username}). Only once the service's
     * own pool is made.
     */
    public Pool asLogin(String user, String password, int size, String purpose) {
        if (made.isEmpty()) {
            throw new IllegalStateException("the service's pool is not made yet");
        }
        ArrayList<SqlConnectOptions> servers = new ArrayList<>();
        for (PgConnectOptions options : made) {
            PgConnectOptions copy = new PgConnectOptions(options).setUser(user).setPassword(password);
            String name = copy.getProperties().getOrDefault("application_name", "loadflow");
            copy.addProperty("application_name", name + " " + purpose);
            servers.add(copy);
        }
        return new SilentLinkPool(() -> PgBuilder.pool()
                .with(new io.vertx.sqlclient.PoolOptions().setMaxSize(size).setConnectionTimeout(0))
                .connectingTo(servers)
                .using(vertx)
                .build(), vertx, linkTimeout);
    }

    /** A server's options as this service connects with them: the link's timeout, and Citus's settings on Citus. */
    PgConnectOptions configure(PgConnectOptions options) {
        options.setConnectTimeout((int) linkTimeout.toMillis());
        if (citus) {
            ON_CITUS.forEach(options::addProperty);
        }
        return options;
    }
}
