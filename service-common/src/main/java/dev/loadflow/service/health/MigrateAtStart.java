package dev.loadflow.service.health;

import dev.loadflow.service.loop.LoopConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.flywaydb.core.Flyway;
import org.jboss.logging.Logger;

import java.time.Duration;

/**
 * Migrates the schema at start ({@code loadflow.db.migrate-at-start}, on locally; on Kubernetes
 * the migration Job does it) without making the database a condition of starting: a service
 * whose database is down starts anyway, stays live and not ready ({@code loadflow-migrations}),
 * and migrates as soon as the database answers, trying again with backoff up to
 * {@code loadflow.loop.max-backoff} (30 s). Quarkus's
 * own {@code quarkus.flyway.migrate-at-start} would fail the start instead, and on Kubernetes a
 * start that fails is a crash loop whose back-off outlasts the outage.
 */
@ApplicationScoped
public class MigrateAtStart {

    private static final Logger LOG = Logger.getLogger(MigrateAtStart.class);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);

    private final Flyway flyway;
    private final boolean enabled;
    private final Duration maxRetry;
    private volatile Thread retrying;
    private volatile boolean migrated;

    MigrateAtStart(Flyway flyway, LoopConfig loops,
                   @ConfigProperty(name = "loadflow.db.migrate-at-start", defaultValue = "true") boolean enabled) {
        this.flyway = flyway;
        this.enabled = enabled;
        this.maxRetry = loops.maxBackoff();
    }

    void start(@Observes StartupEvent event) {
        if (!enabled) {
            return;
        }
        if (!migrate()) {
            retrying = Thread.ofVirtual().name("migrate-at-start").start(this::retry);
        }
    }

    void stop(@Observes ShutdownEvent event) {
        Thread thread = retrying;
        if (thread != null) {
            thread.interrupt();
        }
    }

    private boolean migrate() {
        try {
            var result = flyway.migrate();
            LOG.infof("schema at version %s (%d migrations applied now)", result.targetSchemaVersion, result.migrationsExecuted);
            migrated = true;
            return true;
        } catch (RuntimeException e) {
            LOG.warnf("could not migrate the schema yet (%s); not ready until it is, trying again", e.getMessage());
            return false;
        }
    }

    /** Whether the migration at start has run to its end (false while it waits for the database, or when switched off). */
    boolean migrated() {
        return migrated;
    }

    private void retry() {
        Duration delay = FIRST_RETRY;
        try {
            while (true) {
                Thread.sleep(delay);
                if (migrate()) {
                    return;
                }
                delay = delay.multipliedBy(2).compareTo(maxRetry) > 0 ? maxRetry : delay.multipliedBy(2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
