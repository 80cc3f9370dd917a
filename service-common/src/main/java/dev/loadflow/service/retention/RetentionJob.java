package dev.loadflow.service.retention;

import dev.loadflow.store.outbox.Outbox;
import dev.loadflow.store.retention.PgRetention;
import dev.loadflow.store.timer.TimerStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A service's part of retention ({@code loadflow.retention.parts}), run every
 * {@code loadflow.retention.interval}: each part in batches until nothing is left to remove,
 * the rows removed counted per table in {@code loadflow_retention_rows_removed_total}.
 * Instances may run it at the same time: every statement is safe against another doing the same.
 */
@Startup
@ApplicationScoped
public class RetentionJob {

    private static final Logger LOG = Logger.getLogger(RetentionJob.class);

    /** What a service may own. */
    public enum Part {
        /** Dispatched outbox rows (the dispatcher). */
        DISPATCHED("outbox"),
        /** Fired and cancelled timers (the pump). */
        TIMERS("timers"),
        /** Idle loads' entries to the archive (the worker: the log's one writer). */
        LOG("event_log"),
        /** Parked queue messages (the worker). */
        PARKED("load_queue_dead"),
        /** Dead outbox rows and their failures (the dispatcher). */
        DEAD_OUTBOX("outbox", "outbox_failure"),
        /** Ops alerts (the dispatcher). */
        ALERTS("ops_alert"),
        /**
         * {@code processed_event} (the dispatcher, whose fan-out handlers write it), and on the same
         * horizon the provider messages held by rows ({@code provider_message}).
         */
        PROCESSED("processed_event", "provider_message");

        private final String[] tables;

        Part(String... tables) {
            this.tables = tables;
        }
    }

    private final PgRetention retention;
    /** The service's own stores, resolved only by the part that prunes them. */
    private final Instance<Outbox> outbox;
    private final Instance<TimerStore> timers;
    private final RetentionConfig config;
    private final Clock clock;
    private final Set<Part> parts;
    private final Map<String, Counter> removed = new LinkedHashMap<>();

    RetentionJob(PgRetention retention, Instance<Outbox> outbox, Instance<TimerStore> timers, RetentionConfig config,
                 Clock clock, MeterRegistry registry) {
        this.retention = retention;
        this.outbox = outbox;
        this.timers = timers;
        this.config = config;
        this.clock = clock;
        this.parts = config.parts().filter(p -> !p.isEmpty()).map(EnumSet::copyOf).orElseGet(() -> EnumSet.noneOf(Part.class));
        if (config.username().isEmpty() && this.parts.stream().anyMatch(p -> p != Part.DISPATCHED && p != Part.TIMERS)) {
            LOG.warnf("retention runs %s under the services' login, which may not remove from the log nor what operators "
                    + "handled: set loadflow.retention.username and .password (a member of loadflow_retention)", this.parts);
        }
        for (Part part : this.parts) {
            for (String table : part.tables) {
                removed.put(table, Counter.builder("loadflow.retention.rows.removed").tag("table", table)
                        .description("Rows retention removed from the table (for event_log: moved to event_log_archive)")
                        .register(registry));
            }
        }
    }

    @Scheduled(every = "${loadflow.retention.interval:PT1H}", delayed = "1m",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void scheduled() {
        if (parts.isEmpty()) {
            return;
        }
        try {
            run();
        } catch (RuntimeException e) {
            LOG.warnf(e, "retention did not finish; the next run goes on from what is left");
        }
    }

    /** Runs every owned part to the end now; returns the rows removed per table. */
    public Map<String, Long> run() {
        Instant now = clock.instant();
        int batch = config.batchSize();
        Map<String, Long> counts = new LinkedHashMap<>();
        for (Part part : parts) {
            switch (part) {
                case DISPATCHED -> count(counts, "outbox",
                        BatchedDelete.untilDone(b -> outbox.get().pruneDispatched(now.minus(config.dispatched()), b), batch));
                case TIMERS -> count(counts, "timers",
                        BatchedDelete.untilDone(b -> timers.get().prune(now.minus(config.timers()), b), batch));
                case LOG -> {
                    PgRetention.Archived archived = retention.archiveIdleLoads(now.minus(config.log()), now, batch);
                    count(counts, "event_log", archived.entries());
                }
                case PARKED -> count(counts, "load_queue_dead",
                        BatchedDelete.untilDone(b -> retention.pruneParkedMessages(now.minus(config.dead()), b), batch));
                case DEAD_OUTBOX -> {
                    PgRetention.DeadRows rows;
                    do {
                        rows = retention.pruneDeadOutbox(now.minus(config.dead()), batch);
                        count(counts, "outbox", rows.rows());
                        count(counts, "outbox_failure", rows.failures());
                    } while (rows.rows() == batch);
                }
                case ALERTS -> count(counts, "ops_alert",
                        BatchedDelete.untilDone(b -> retention.pruneAlerts(now.minus(config.dead()), b), batch));
                case PROCESSED -> {
                    count(counts, "processed_event",
                            BatchedDelete.untilDone(b -> retention.pruneProcessed(now.minus(config.processed()), b), batch));
                    count(counts, "provider_message",
                            BatchedDelete.untilDone(b -> retention.pruneProviderMessages(now.minus(config.processed()), b), batch));
                }
            }
        }
        if (counts.values().stream().anyMatch(n -> n > 0)) {
            LOG.infof("retention removed %s", counts);
        }
        return counts;
    }

    private void count(Map<String, Long> counts, String table, long rows) {
        counts.merge(table, rows, Long::sum);
        removed.get(table).increment(rows);
    }
}
