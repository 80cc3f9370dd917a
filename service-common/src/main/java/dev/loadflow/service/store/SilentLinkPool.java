package dev.loadflow.service.store;

import dev.loadflow.store.pg.Pg;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgPool;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PrepareOptions;
import io.vertx.sqlclient.PreparedQuery;
import io.vertx.sqlclient.Query;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The reactive pool, made anew when its link to PostgreSQL goes silent. A link can die without
 * a reset (a network partition, a NAT or firewall that dropped the connection's state, a host
 * gone): nothing arrives on its connections any more, and the Vert.x client, which has no time
 * limit on a statement, would wait on them for ever. So a probe ({@code SELECT 1}) runs through
 * the pool every quarter of {@code linkTimeout}; one that has no answer within
 * {@code linkTimeout} means the pool's connections cannot be trusted: a fresh pool takes over
 * and the old one is closed, and every statement still waiting fails ({@link Pg#linkWentSilent}:
 * as the database being unreachable, so the callers give back their work and ingest answers
 * 503). The old pool's connections that had a statement in flight stay open until the
 * operating system gives up on them. A database that is
 * simply down fails the probe at once and changes nothing.
 *
 * <p>One connection can go silent while the others answer: one made while the link was silent
 * stays so when the link comes back (its handshake's bytes were lost), and the probe, on another
 * connection, finds nothing wrong. So a statement that waits three times {@code linkTimeout} for
 * its answer ({@link Pg#watch}; no statement of the services runs nearly so long) has the pool
 * made anew the same way.
 */
@SuppressWarnings("deprecation") // Quarkus hands the pool out as a PgPool too
final class SilentLinkPool implements PgPool {

    private static final Logger LOG = Logger.getLogger(SilentLinkPool.class);

    private final Supplier<Pool> pools;
    private final Duration linkTimeout;
    private volatile Pool current;
    /** When {@link #current} was made ({@link System#nanoTime}). */
    private volatile long currentSince;
    private volatile boolean probing;
    private final Pg.Watch watch;

    SilentLinkPool(Supplier<Pool> pools, Vertx vertx, Duration linkTimeout) {
        this(pools, vertx, linkTimeout, Duration.ofMillis(Math.max(250, linkTimeout.toMillis() / 4)));
    }

    /** @param probeEvery how often the probe asks (a quarter of {@code linkTimeout}, at least 250 ms) */
    SilentLinkPool(Supplier<Pool> pools, Vertx vertx, Duration linkTimeout, Duration probeEvery) {
        this.pools = pools;
        this.linkTimeout = linkTimeout;
        this.current = pools.get();
        this.currentSince = System.nanoTime();
        vertx.setPeriodic(probeEvery.toMillis(), id -> probe());
        this.watch = new Pg.Watch(linkTimeout.multipliedBy(3).toNanos(), this::statementWentSilent);
        Pg.watch(watch);
    }

    /** A statement begun at {@code began} had no answer for three link timeouts: unless the pool was made anew since, it is now. */
    private void statementWentSilent(long began) {
        Pool stuck = current;
        if (began - currentSince >= 0) {
            giveUp(stuck, "a statement had no answer for " + linkTimeout.multipliedBy(3));
        }
    }

    /** Makes the pool anew in place of {@code given}, unless that was done already, and fails what waits on it. */
    private synchronized void giveUp(Pool given, String why) {
        if (given != current) {
            return;
        }
        current = pools.get();
        currentSince = System.nanoTime();
        LOG.warnf("PostgreSQL has not answered (%s): the pool's connections are closed and made anew", why);
        given.close();
        Pg.linkWentSilent();
    }

    private void probe() {
        if (probing) {
            return;
        }
        probing = true;
        Pool probed = current;
        long start = System.nanoTime();
        probed.query("SELECT 1").execute().timeout(linkTimeout.toMillis(), TimeUnit.MILLISECONDS).onComplete(answer -> {
            probing = false;
            if (answer.failed() && System.nanoTime() - start >= linkTimeout.toNanos()) {
                giveUp(probed, "nothing for " + linkTimeout + ": " + answer.cause().getMessage());
            }
        });
    }

    @Override
    public void getConnection(Handler<AsyncResult<SqlConnection>> handler) {
        current.getConnection(handler);
    }

    @Override
    public Future<SqlConnection> getConnection() {
        return current.getConnection();
    }

    @Override
    public Query<RowSet<Row>> query(String sql) {
        return current.query(sql);
    }

    @Override
    public PreparedQuery<RowSet<Row>> preparedQuery(String sql) {
        return current.preparedQuery(sql);
    }

    @Override
    public PreparedQuery<RowSet<Row>> preparedQuery(String sql, PrepareOptions options) {
        return current.preparedQuery(sql, options);
    }

    @Override
    public void close(Handler<AsyncResult<Void>> handler) {
        Pg.unwatch(watch);
        current.close(handler);
    }

    @Override
    public Future<Void> close() {
        Pg.unwatch(watch);
        return current.close();
    }

    @Override
    public PgPool connectHandler(Handler<SqlConnection> handler) {
        throw new UnsupportedOperationException("set on the pool's builder");
    }

    @Override
    public PgPool connectionProvider(Function<Context, Future<SqlConnection>> provider) {
        throw new UnsupportedOperationException("set on the pool's builder");
    }

    @Override
    public int size() {
        return current.size();
    }
}
