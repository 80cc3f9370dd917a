package dev.loadflow.service.metrics;

import dev.loadflow.store.pg.Pg;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The database's connection budget as the server sees it, for every service to export:
 * {@code loadflow_db_connections_used} (client sessions open on the server, loadflow's and
 * anyone else's) and {@code loadflow_db_connections_limit} ({@code max_connections} less the
 * connections reserved for superusers). An autoscaled fleet that nears the limit fails to open
 * connections; the alert on their ratio says so first.
 */
@Startup // its gauges exist from the first scrape, not only once the first refresh made the bean
@ApplicationScoped
public class DatabaseConnections {

    private static final Logger LOG = Logger.getLogger(DatabaseConnections.class);

    static final String READ = """
            SELECT count(*) FILTER (WHERE backend_type = 'client backend') AS used,
                   current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int AS limit
            FROM pg_stat_activity""";

    private final Pool pool;
    private final AtomicInteger used = new AtomicInteger(-1);
    private final AtomicInteger limit = new AtomicInteger(-1);

    DatabaseConnections(Pool pool, MeterRegistry registry) {
        this.pool = pool;
        Gauge.builder("loadflow.db.connections.used", used, AtomicInteger::get)
                .description("Client connections open on the PostgreSQL server (all of its users); -1 before the first read")
                .strongReference(true).register(registry);
        Gauge.builder("loadflow.db.connections.limit", limit, AtomicInteger::get)
                .description("max_connections less superuser_reserved_connections: what clients may open; -1 before the first read")
                .strongReference(true).register(registry);
    }

    @Scheduled(every = "${loadflow.db.connections-interval:15s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void refresh() {
        try {
            Row row = Pg.await(pool.query(READ).execute()).iterator().next();
            used.set(row.getLong("used").intValue());
            limit.set(row.getInteger("limit"));
        } catch (RuntimeException e) {
            LOG.debugf("could not read the database's connections: %s", e.getMessage());
        }
    }
}
