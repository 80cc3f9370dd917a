package dev.loadflow.service.health;

import dev.loadflow.store.pg.Migrations;
import dev.loadflow.store.pg.Pg;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import jakarta.interceptor.Interceptor;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The schema gate: a service runs its loops (consume, dispatch, fire) only on a schema it was
 * built for. It reads the schema's version and its floor ({@code schema_floor}, the oldest
 * build that may still run on it) at start, then every {@code loadflow.db.schema-check}:
 *
 * <ul>
 *   <li><b>behind</b> (a migration of this build not applied yet: the Job has not run, or failed):
 *   the loops wait, the service is not ready;</li>
 *   <li><b>current</b>, or <b>ahead</b> by migrations that keep this build working (expand):
 *   the loops run, the service is ready;</li>
 *   <li><b>ahead past this build</b> (a contract migration raised the floor above this build's
 *   newest migration): the loops stop and the service reports not ready, for the new release's
 *   pods to take over.</li>
 * </ul>
 *
 * It reports on readiness ({@code loadflow-migrations}) and in the gauges
 * {@code loadflow_schema_version{of="database"|"build"}} and {@code loadflow_schema_gate_open}.
 */
@ApplicationScoped
public class SchemaGate {

    private static final Logger LOG = Logger.getLogger(SchemaGate.class);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    /** The longest wait between looks while the gate is closed: a pod is ready soon after its Job ran. */
    private static final Duration MAX_RETRY = Duration.ofSeconds(5);

    /** Where the schema stands for this build. */
    public enum Standing {
        UNKNOWN("the schema could not be read yet"),
        BEHIND("migrations of this build are not applied yet"),
        CURRENT("the schema is this build's"),
        AHEAD_COMPATIBLE("the schema is ahead of this build by migrations it can run on"),
        AHEAD_PAST("the schema has moved past this build (its floor is above this build's newest migration)");

        private final String meaning;

        Standing(String meaning) {
            this.meaning = meaning;
        }

        public boolean open() {
            return this == CURRENT || this == AHEAD_COMPATIBLE;
        }

        public String meaning() {
            return meaning;
        }
    }

    /** What the last look at the schema found. */
    public record Reading(Standing standing, int database, int build, int floor, int pending, String error) {
    }

    /** The newest migration applied with success, by its whole number (a V10.1 counts as 10). */
    static final String APPLIED = """
            SELECT max((string_to_array(version, '.'))[1]::int) AS version
            FROM flyway_schema_history WHERE success AND version IS NOT NULL""";
    private static final String UNDEFINED_TABLE = "42P01";

    private final Pool pool;
    private final Duration interval;
    private final List<Runnable> onOpen = new ArrayList<>();
    private final List<Runnable> onClosed = new ArrayList<>();
    private final AtomicInteger databaseVersion = new AtomicInteger(-1);
    private final AtomicInteger open = new AtomicInteger();
    private volatile Reading reading = new Reading(Standing.UNKNOWN, -1, Migrations.NEWEST, -1, -1, null);
    private volatile boolean loopsRunning;
    private volatile boolean stoppedForGood;
    private volatile Thread watching;

    public SchemaGate(Pool pool, MeterRegistry registry,
                      @ConfigProperty(name = "loadflow.db.schema-check", defaultValue = "PT1M") Duration interval) {
        this.pool = pool;
        this.interval = interval;
        Gauge.builder("loadflow.schema.version", databaseVersion, AtomicInteger::get)
                .description("The schema's version (of=database) and the newest migration this build has (of=build)")
                .tag("of", "database").strongReference(true).register(registry);
        Gauge.builder("loadflow.schema.version", this, gate -> gate.reading.build())
                .tag("of", "build").strongReference(true).register(registry);
        Gauge.builder("loadflow.schema.gate.open", open, AtomicInteger::get)
                .description("1 while the schema is one this build runs its loops on, else 0").strongReference(true).register(registry);
    }

    /**
     * Runs {@code start} once the schema is one this build can run on (at once if it is now),
     * and {@code stop} if it later moves past this build (the loops then stay stopped until the
     * pod is replaced). Call during start-up.
     */
    public synchronized void whenOpen(Runnable start, Runnable stop) {
        onOpen.add(start);
        onClosed.add(stop);
        if (loopsRunning) {
            start.run();
        }
    }

    /** The last reading. */
    public Reading reading() {
        return reading;
    }

    /**
     * Looks once during start-up, after a migration at start and after the loops registered
     * ({@link #whenOpen}), so a service on its own schema starts them before it reports
     * started; then looks again on a thread of its own.
     */
    void start(@Observes @Priority(Interceptor.Priority.APPLICATION + 600) StartupEvent event) {
        look();
        watching = Thread.ofVirtual().name("schema-gate").start(this::watch);
    }

    void stop(@Observes ShutdownEvent event) {
        Thread thread = watching;
        if (thread != null) {
            thread.interrupt();
        }
    }

    private void watch() {
        Duration wait = reading.standing().open() ? interval : FIRST_RETRY;
        try {
            while (true) {
                Thread.sleep(wait);
                look();
                if (reading.standing().open()) {
                    wait = interval;
                } else {
                    wait = wait.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : wait.multipliedBy(2);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reads the schema once and opens or closes the gate; returns what it found. */
    public synchronized Reading look() {
        Reading now = read();
        Reading before = reading;
        reading = now;
        databaseVersion.set(now.database());
        open.set(now.standing().open() ? 1 : 0);
        if (now.standing() != before.standing()) {
            if (now.standing() == Standing.UNKNOWN) {
                LOG.warnf("schema gate: %s (%s)", now.standing().meaning(), now.error());
            } else {
                LOG.infof("schema gate: database at V%d, this build's newest migration V%d, floor V%d: %s",
                        now.database(), now.build(), now.floor(), now.standing().meaning());
            }
        }
        if (now.standing().open() && !loopsRunning && !stoppedForGood) {
            loopsRunning = true;
            onOpen.forEach(Runnable::run);
        } else if (now.standing() == Standing.AHEAD_PAST && loopsRunning) {
            loopsRunning = false;
            stoppedForGood = true;
            LOG.errorf("schema gate: the schema moved past this build (floor V%d above V%d): stopping its loops",
                    now.floor(), now.build());
            onClosed.forEach(Runnable::run);
        }
        return now;
    }

    /**
     * The whole number of the newest migration applied ({@code flyway_schema_history}; 0 on a
     * database with none yet) and the schema's floor, read over the stores' own pool: a look takes
     * one connection for a moment and none of the JDBC pool, which only a migration at start uses.
     */
    private Reading read() {
        int build = Migrations.NEWEST;
        try {
            int database = applied();
            if (database < build) {
                return new Reading(Standing.BEHIND, database, build, -1, build - database, null);
            }
            int floor = floor();
            Standing standing = floor > build ? Standing.AHEAD_PAST
                    : database > build ? Standing.AHEAD_COMPATIBLE : Standing.CURRENT;
            return new Reading(standing, database, build, floor, 0, null);
        } catch (RuntimeException e) {
            return new Reading(Standing.UNKNOWN, reading.database(), build, -1, -1, e.getClass().getSimpleName()
                    + ": " + e.getMessage());
        }
    }

    private int applied() {
        try {
            RowSet<Row> rows = Pg.await(pool.query(APPLIED).execute());
            Integer version = rows.iterator().next().getInteger("version");
            return version == null ? 0 : version;
        } catch (PgException e) {
            if (UNDEFINED_TABLE.equals(e.getSqlState())) {
                return 0;
            }
            throw e;
        }
    }

    private int floor() {
        RowSet<Row> rows = Pg.await(pool.query("SELECT lowest_build FROM schema_floor").execute());
        return rows.iterator().hasNext() ? rows.iterator().next().getInteger("lowest_build") : 0;
    }
}
